/** Contract of the callbacks repository, on both engines. */
import { CompiledQuery, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initialBanState, observe } from '../../src/modules/callbacks/ban.js';
import type { CallbacksRepository, NewRule } from '../../src/modules/callbacks/ports.js';
import type { UnsignedRecord } from '../../src/modules/callbacks/record.js';
import { randomBytes } from 'node:crypto';
import { secretBox } from '../../src/kernel/secret-box.js';
import { migrate } from '../../src/storage/migrate.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations/index.js';
import { limitParam } from '../../src/storage/precompiled.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';
import { kyselyCallbacksRepository } from '../../src/storage/repositories/callbacks.js';
import type { Storage } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestStorage } from '../helpers/engines.js';

const rule = (appId: string, name: string): NewRule => ({
  appId,
  name,
  url: 'http://127.0.0.1:9/cb',
  enabled: true,
  secret: 's3cret',
  eventTypes: ['chat'],
  chatTypes: ['chat', 'groupchat'],
  messageTypes: ['txt'],
  sources: ['sdk', 'rest'],
});

const record = (callId: string): UnsignedRecord => ({
  callId,
  eventType: 'chat',
  timestamp: 1,
  chat_type: 'chat',
  from: 'a',
  to: 'b',
  msg_id: '42',
  payload: { bodies: [{ type: 'txt', msg: '好' }], ext: {} },
  securityVersion: '1.0.0',
});

describe.each(ENGINES)('callbacks repository on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let repo: CallbacksRepository;
  const clock = new FakeClock();
  const box = secretBox(randomBytes(32));

  beforeEach(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    repo = kyselyCallbacksRepository(storage.db, box);
  });
  afterEach(async () => cleanup());

  it('stores rule secrets sealed, and still reads one stored in plain text before sealing', async () => {
    const created = await repo.createRule(rule('app1', 'sealed'), 1);
    if (!created.ok) throw new Error('rule not created');
    const raw = await storage.db.selectFrom('callback_rules').select('secret').where('id', '=', created.rule.id).executeTakeFirstOrThrow();
    expect(raw.secret).not.toContain('s3cret');
    expect(box.open(raw.secret)).toBe('s3cret');
    expect((await repo.getRuleById(created.rule.id))?.secret).toBe('s3cret');

    await repo.updateRule('app1', 'sealed', { secret: 'n3w-secret' }, 2);
    const updated = await storage.db.selectFrom('callback_rules').select('secret').where('id', '=', created.rule.id).executeTakeFirstOrThrow();
    expect(updated.secret).not.toContain('n3w-secret');
    expect((await repo.getRuleById(created.rule.id))?.secret).toBe('n3w-secret');

    await storage.db.updateTable('callback_rules').set({ secret: 'legacy-plain' }).where('id', '=', created.rule.id).execute();
    expect((await repo.getRuleById(created.rule.id))?.secret).toBe('legacy-plain');
  });

  it('settings default to disabled and are upserted per app', async () => {
    expect(await repo.getSettings('app1')).toEqual({ appId: 'app1', enabled: false, storeFailed: false });
    expect(await repo.putSettings('app1', { enabled: true }, 1)).toEqual({ appId: 'app1', enabled: true, storeFailed: false });
    expect(await repo.putSettings('app1', { storeFailed: true }, 2)).toEqual({ appId: 'app1', enabled: true, storeFailed: true });
    expect(await repo.getSettings('app2')).toEqual({ appId: 'app2', enabled: false, storeFailed: false });
  });

  it('rules: at most 4 per app, names unique per app, a freed slot is reusable', async () => {
    for (const name of ['a', 'b', 'c', 'd']) expect((await repo.createRule(rule('app1', name), 1)).ok).toBe(true);
    expect(await repo.createRule(rule('app1', 'e'), 1)).toEqual({ ok: false, reason: 'limit_reached' });
    expect(await repo.createRule(rule('app1', 'a'), 1)).toEqual({ ok: false, reason: 'duplicate_name' });
    expect((await repo.createRule(rule('app2', 'a'), 1)).ok).toBe(true);
    expect(await repo.deleteRule('app1', 'b')).toBe(true);
    expect(await repo.deleteRule('app1', 'b')).toBe(false);
    const again = await repo.createRule(rule('app1', 'e'), 2);
    expect(again.ok).toBe(true);
    expect((await repo.listRules('app1')).map((r) => r.name)).toEqual(['a', 'c', 'd', 'e']);
  });

  it('concurrent creates never exceed 4 rules', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => repo.createRule(rule('app1', n), 1)));
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(await repo.listRules('app1')).toHaveLength(4);
  });

  it('reads back a rule with its filters, updates it and persists ban state', async () => {
    const created = await repo.createRule(rule('app1', 'r1'), 10);
    if (!created.ok) throw new Error('create failed');
    expect(created.rule).toMatchObject({ name: 'r1', enabled: true, eventTypes: ['chat'], messageTypes: ['txt'], secret: 's3cret', ban: initialBanState() });
    const updated = await repo.updateRule('app1', 'r1', { url: 'https://example.com/x', enabled: false, sources: ['rest'] }, 20);
    expect(updated).toMatchObject({ url: 'https://example.com/x', enabled: false, sources: ['rest'], updatedAt: 20 });
    expect(await repo.updateRule('app1', 'nope', { enabled: true }, 20)).toBeUndefined();

    let ban = initialBanState();
    for (let i = 0; i < 90; i++) ban = observe(ban, 'failure', 1000 + i).state;
    await repo.saveBanState(created.rule.id, ban, 30);
    const back = await repo.getRuleById(created.rule.id);
    expect(back?.ban).toEqual(ban);
    expect(back?.ban.status).toBe('banned');
    const row = await storage.db.selectFrom('callback_rules').select(['status', 'ban_count', 'banned_until']).where('id', '=', created.rule.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'banned', ban_count: 1, banned_until: ban.bannedUntil });
  });

  it('exception store: keys ascending with size and retry, records with their last error, expiry', async () => {
    await repo.storeRecords(
      [
        { appId: 'app1', dateKey: '202611211210', ruleId: 1, ruleName: 'r1', record: record('k#a_1'), eventType: 'chat', msgId: '1', lastError: 'HTTP 500' },
        { appId: 'app1', dateKey: '202611211200', ruleId: 1, ruleName: 'r1', record: record('k#a_2'), eventType: 'chat', msgId: '1', lastError: 'HTTP 502' },
        { appId: 'app1', dateKey: '202611211210', ruleId: 1, ruleName: 'r1', record: record('k#a_3'), eventType: 'chat', msgId: '1', lastError: 'timeout' },
        { appId: 'app2', dateKey: '202611211210', ruleId: 2, ruleName: 'r1', record: record('k#b_1'), eventType: 'chat', msgId: '1', lastError: 'x' },
      ],
      1000,
    );
    await repo.storeRecords([{ appId: 'app1', dateKey: '202611211220', ruleId: 1, ruleName: 'r1', record: record('k#a_4'), eventType: 'chat', msgId: '1', lastError: 'y' }], 5000);
    expect(await repo.storedKeys('app1')).toEqual([
      { date: '202611211200', size: 1, retry: 0 },
      { date: '202611211210', size: 2, retry: 0 },
      { date: '202611211220', size: 1, retry: 0 },
    ]);
    expect(await repo.storedKeys('app2')).toEqual([{ date: '202611211210', size: 1, retry: 0 }]);
    expect(await repo.bumpKeyRetry('app1', '202611211210', 2000)).toBe(1);
    expect(await repo.bumpKeyRetry('app1', '202611211210', 2001)).toBe(2);
    expect((await repo.storedKeys('app1'))[1]).toEqual({ date: '202611211210', size: 2, retry: 2 });

    const recs = await repo.storedPage('app1', '202611211210', 0, 100);
    expect(recs.map((r) => [r.record.callId, r.lastError, r.storedAt])).toEqual([
      ['k#a_1', 'HTTP 500', 1000],
      ['k#a_3', 'timeout', 1000],
    ]);
    expect(recs[0]?.record).toEqual(record('k#a_1'));
    expect(recs.map((r) => r.lastResend)).toEqual([null, null]);
    // A failed re-send replaces the last error; a successful one keeps it and says so.
    await repo.noteResend(recs[0]!.id, { result: 'failure', at: 1500, error: 'HTTP 404' });
    await repo.noteResend(recs[1]!.id, { result: 'success', at: 1600 });
    expect((await repo.storedPage('app1', '202611211210', 0, 100)).map((r) => [r.lastError, r.lastResend])).toEqual([
      ['HTTP 404', { result: 'failure', at: 1500 }],
      ['timeout', { result: 'success', at: 1600 }],
    ]);

    // A key that expires in part keeps its later records and their count.
    await repo.storeRecords([{ appId: 'app1', dateKey: '202611211220', ruleId: 1, ruleName: 'r1', record: record('k#a_5'), eventType: 'chat', msgId: '1', lastError: 'z' }], 500);
    expect((await repo.storedKeys('app1'))[2]).toEqual({ date: '202611211220', size: 2, retry: 0 });
    expect(await repo.deleteStoredUpTo(1000)).toBe(5);
    expect(await repo.deleteStoredUpTo(1000)).toBe(0);
    expect(await repo.storedKeys('app1')).toEqual([{ date: '202611211220', size: 1, retry: 0 }]);
    expect(await repo.storedKeys('app2')).toEqual([]);
    const keysLeft = await storage.db.selectFrom('callback_store_keys').select('date_key').execute();
    expect(keysLeft.map((k) => k.date_key)).toEqual(['202611211220']);
  });

  it('reads a page of a key on the (app_id, date_key, id) index, in index order (no sort)', async () => {
    const page = storage.db
      .selectFrom('callback_stored')
      .selectAll()
      .where('app_id', '=', 'app1')
      .where('date_key', '=', '202611211200')
      .where('id', '>', 5)
      .orderBy('id')
      .limit(limitParam(33));
    const { sql: text, parameters } = page.compile();
    const explain = async (conn: typeof storage.db, prefix: string) =>
      (await conn.executeQuery<Record<string, string>>(CompiledQuery.raw(`${prefix} ${text}`, [...parameters]))).rows.map((r) => r.detail ?? r['QUERY PLAN']).join('\n');
    const plan =
      engine === 'sqlite'
        ? await explain(storage.db, 'EXPLAIN QUERY PLAN')
        : await storage.db.transaction().execute(async (trx) => {
            // An empty table would be scanned anyway; what matters is that the index can serve the query.
            await sql`SET LOCAL enable_seqscan = off`.execute(trx);
            return explain(trx, 'EXPLAIN');
          });
    expect(plan).toContain('callback_stored_key');
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
  });

  it('migration 60 gives keys stored before it their size', async () => {
    const at = (dateKey: string, callId: string) => ({ appId: 'app1', dateKey, ruleId: 1, ruleName: 'r1', record: record(callId), eventType: 'chat', msgId: '1', lastError: 'x' });
    await repo.storeRecords([at('202611211200', 'k#1'), at('202611211200', 'k#2'), at('202611211210', 'k#3')], 1000);
    // The schema as it was before: no size column, migration 60 not applied.
    await sql`ALTER TABLE callback_store_keys DROP COLUMN size`.execute(storage.db);
    await sql`DELETE FROM parley_migrations WHERE version = 60`.execute(storage.db);
    await migrate(storage.db, engine === 'sqlite' ? sqliteMigrations : postgresMigrations, { now: () => 2000 });
    expect(await repo.storedKeys('app1')).toEqual([
      { date: '202611211200', size: 2, retry: 0 },
      { date: '202611211210', size: 1, retry: 0 },
    ]);
  });

  it('the retention sweep deletes a large expired key in chunks, serving the event loop between them', async () => {
    const rows = (dateKey: string, n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ appId: 'app1', dateKey, ruleId: 1, ruleName: 'r1', record: record(`k#${from + i}`), eventType: 'chat', msgId: '1', lastError: 'x' }));
    for (let i = 0; i < 2500; i += 500) await repo.storeRecords(rows(i < 1500 ? '202611211200' : '202611211210', 500, i), 1000);
    await repo.storeRecords(rows('202611211210', 1, 9000), 5000);
    // Turns of the event loop while the sweep runs: one SQLite statement never yields to them.
    let turns = 0;
    let sweeping = true;
    const turn = () => {
      turns++;
      if (sweeping) setImmediate(turn);
    };
    setImmediate(turn);
    const deleted = await repo.deleteStoredUpTo(1000);
    sweeping = false;
    expect(deleted).toBe(2500);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(await repo.storedKeys('app1')).toEqual([{ date: '202611211210', size: 1, retry: 0 }]);
  });
});
