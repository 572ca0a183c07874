/**
 * A re-send reads its key once, a page at a time after the last id sent (never from the start,
 * never the whole key), runs each page as its own job (so no job outlives its lease), and is
 * paced per app by PARLEY_CALLBACK_RESEND_PER_SECOND on the injected clock: a second re-send of
 * the same app shares the rate instead of adding to it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import { RESEND_QUEUE, type ResendPayload } from '../../src/modules/callbacks/delivery.js';
import type { CallbacksRepository } from '../../src/modules/callbacks/ports.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';
import { storeRecords, type StoreTarget } from '../helpers/stored-records.js';

const KEY = '202611210900';

/** Counts the real repository's page reads (it still answers them). */
function countPages(repo: CallbacksRepository): { afterId: number; limit: number; rows: number }[] {
  const reads: { afterId: number; limit: number; rows: number }[] = [];
  const real = repo.storedPage.bind(repo);
  repo.storedPage = async (appId, dateKey, afterId, limit) => {
    const rows = await real(appId, dateKey, afterId, limit);
    reads.push({ afterId, limit, rows: rows.length });
    return rows;
  };
  return reads;
}

describe.each(ENGINES)('paged re-send on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  let target: StoreTarget;
  const api = (method: 'POST' | 'PUT', path: string, body: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, body);

  const start = async (env: Record<string, string>) => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_RESEND_PER_SECOND: '32', ...env } });
    im = await createImApp(t.app);
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    expect((await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url, event_types: ['chat'] })).status).toBe(200);
    const rule = await t.app.parley.callbacks.service.rule((await t.app.parley.im.apps.requireApp(im.org, im.name)).id, 'main');
    target = { appId: rule.appId, appkey: `${im.org}#${im.name}`, ruleId: rule.id, ruleName: rule.name, dateKey: KEY };
  };
  const received = () => receiver.bodies<CallbackRecord>().map((b) => b.callId);

  beforeEach(() => {
    receiver = undefined as unknown as CallbackReceiver;
  });
  afterEach(async () => {
    await t.close();
    await receiver?.close();
  });

  it('reads 70 records as three keyset pages, one job each, each record sent once', async () => {
    // Workers off: the test runs the re-send handler itself, one job at a time.
    await start({ PARLEY_WORKERS: 'false' });
    const { callbacks, storage } = t.app.parley;
    const stored = await storeRecords(callbacks.repo, target, 70, clock.now());
    const reads = countPages(callbacks.repo);

    const sizes: number[] = [];
    const runAts: number[] = [];
    let payload: ResendPayload | undefined = { appId: target.appId, dateKey: KEY };
    for (let jobId = 1; payload; jobId++) {
      const before = receiver.requests.length;
      const now = clock.now();
      const result = await callbacks.delivery.resend({ id: jobId, queue: RESEND_QUEUE, payload, attempts: 0, orderingKey: null, runAt: now, createdAt: now });
      expect(result).toEqual({ status: 'done' });
      sizes.push(receiver.requests.length - before);
      // The next page, if any, is the next job in the queue, due once the page's share of the rate has passed.
      const next = await storage.db.selectFrom('jobs').select(['id', 'payload', 'run_at']).where('queue', '=', RESEND_QUEUE).orderBy('id').executeTakeFirst();
      payload = next ? (JSON.parse(next.payload) as ResendPayload) : undefined;
      if (next) {
        runAts.push(Number(next.run_at) - now);
        await storage.db.deleteFrom('jobs').where('id', '=', next.id).execute();
        clock.set(Number(next.run_at));
      }
    }
    expect(sizes).toEqual([32, 32, 6]);
    expect(runAts).toEqual([1000, 1000]);
    // Each page holds the next records in storage order (sent in parallel, so in any order within it).
    for (const [from, to] of [[0, 32], [32, 64], [64, 70]]) expect(received().slice(from, to).sort()).toEqual(stored.slice(from, to).sort());
    // Three reads of at most 33 rows, each starting after the last record of the one before.
    const ids = (await storage.db.selectFrom('callback_stored').select('id').orderBy('id').execute()).map((r) => Number(r.id));
    expect(reads).toEqual([
      { afterId: 0, limit: 33, rows: 33 },
      { afterId: ids[31], limit: 33, rows: 33 },
      { afterId: ids[63], limit: 33, rows: 6 },
    ]);
  });

  it('paces pages by the injected clock, per app, across concurrent re-sends of the app', async () => {
    await start({});
    const { callbacks, jobs } = t.app.parley;
    const stored = await storeRecords(callbacks.repo, target, 70, clock.now());
    const reads = countPages(callbacks.repo);
    const settle = async (ms: number) => {
      clock.advance(ms);
      jobs.notifyAll();
      await jobs.idle(RESEND_QUEUE);
    };

    expect((await api('POST', '/callbacks/storage/retry', { date: KEY })).body.data).toBe('success');
    // A second re-send of the same app while the first runs: it waits its turn in the app's rate.
    expect((await api('POST', '/callbacks/storage/retry', { date: KEY })).body.data).toBe('success');
    await settle(0);
    expect(receiver.requests).toHaveLength(32);
    await settle(999);
    expect(receiver.requests).toHaveLength(32);
    await settle(1);
    expect(receiver.requests).toHaveLength(64);
    for (let s = 0; s < 10; s++) await settle(1000);
    // Both re-sends sent every record once each, 32 a second, and read the key page by page.
    expect(received().sort()).toEqual([...stored, ...stored].sort());
    // Six pages of at most 33, two from the start (the request's own check for a record runs in
    // its transaction, not through this repository).
    const pages = reads.filter((r) => r.limit === 33);
    expect(pages.map((r) => r.rows).sort()).toEqual([33, 33, 33, 33, 6, 6]);
    expect(pages.filter((r) => r.afterId === 0)).toHaveLength(2);
    expect(await jobs.depth(RESEND_QUEUE)).toBe(0);
  });

  it('many re-sends of one app wait in line: only the page whose turn it is gets claimed and put back', async () => {
    await start({});
    const { callbacks, jobs, storage } = t.app.parley;
    await storeRecords(callbacks.repo, target, 40, clock.now());
    for (let i = 0; i < 20; i++) expect((await api('POST', '/callbacks/storage/retry', { date: KEY })).body.data).toBe('success');
    for (let s = 0; s < 4; s++) {
      clock.advance(s === 0 ? 0 : 1000);
      jobs.notifyAll();
      await jobs.idle(RESEND_QUEUE);
    }
    // Four pages in four seconds, 32 records a second, the re-sends taking turns in the order asked:
    // the rate holds for the app as a whole.
    expect(receiver.requests).toHaveLength(4 * 32);
    // The other re-sends were never claimed only to be put back.
    const rows = await storage.db.selectFrom('jobs').select(['attempts']).where('queue', '=', RESEND_QUEUE).execute();
    expect(rows).toHaveLength(16 + 4);
    expect(rows.reduce((sum, r) => sum + Number(r.attempts), 0)).toBeLessThanOrEqual(3);
  });
});
