/**
 * Re-drive after a ban (opt-in per rule, `redrive: true`): when the ban ends, the records stored
 * during it are re-sent in order, keeping their callIds, at the re-send rate
 * (PARLEY_CALLBACK_RESEND_PER_SECOND, injected clock), and their key's `retry` count goes up as for
 * a manual re-send. Records stored for failures before the ban, and rules without `redrive`, are
 * left alone. Real job queue, outbound sender and receiver; both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import type { MessageEvent } from '../../src/modules/im/post-send.js';
import { isRedriven, redriveKeys, redrivePage, redriveWindow } from '../../src/modules/callbacks/redrive.js';
import type { StoredRecord } from '../../src/modules/callbacks/ports.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

const APP = 'app-redrive';
const MIN = 60_000;

describe('re-drive window (pure)', () => {
  const at = Date.UTC(2026, 10, 21, 12, 30, 0);
  const window = redriveWindow(7, at, 2, 5_000);
  const stored = (over: Partial<StoredRecord>): StoredRecord =>
    ({ id: 1, appId: APP, dateKey: 'k', ruleId: 7, ruleName: 'main', record: {}, lastError: 'rule banned until x', storedAt: at - MIN, lastResend: null, ...over }) as StoredRecord;

  it('reaches back the ban (count × 5 min) and one tick, and covers its date keys', () => {
    expect(window).toEqual({ ruleId: 7, from: at - 10 * MIN - 5_000, to: at });
    expect(redriveKeys(window, 'UTC')).toEqual(['202611211210', '202611211220', '202611211230']);
  });

  it("takes only the rule's never re-sent records stored during the ban because of it", () => {
    expect(isRedriven(stored({}), window)).toBe(true);
    expect(isRedriven(stored({ ruleId: 8 }), window)).toBe(false);
    expect(isRedriven(stored({ lastError: 'HTTP 500' }), window)).toBe(false);
    expect(isRedriven(stored({ lastResend: { result: 'success', at } }), window)).toBe(false);
    expect(isRedriven(stored({ storedAt: at + 1 }), window)).toBe(false);
    expect(isRedriven(stored({ storedAt: window.from - 1 }), window)).toBe(false);
  });

  it('pages by records re-driven, not rows read, and says where the next page starts', () => {
    const rows = [1, 2, 3, 4, 5, 6].map((id) => stored({ id, ruleId: id % 2 === 0 ? 7 : 8 }));
    expect(redrivePage(rows, window, 2)).toEqual({ records: [rows[1], rows[3]], nextAfterId: 4 });
    expect(redrivePage(rows.slice(4), window, 2)).toEqual({ records: [rows[5]], nextAfterId: undefined });
    // Only `scan` rows are looked at; the next page starts after the last one (rows holds scan + 1).
    expect(redrivePage(rows.slice(0, 4), window, 2, 3)).toEqual({ records: [rows[1]], nextAfterId: 3 });
  });
});

describe.each(ENGINES)('re-drive after a ban on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: CallbackReceiver;
  let seq = 0;
  const cb = () => t.app.parley.callbacks;

  function message(): MessageEvent {
    seq++;
    return {
      appId: APP,
      appkey: 'acme#shop',
      msgId: String(2_000_000 + seq),
      from: 'alice',
      to: 'bob',
      chatType: 'chat',
      timestamp: clock.now(),
      payload: { bodies: [{ type: 'txt', msg: `hello ${seq}` }], ext: {} },
      source: 'sdk',
      offlineReceivers: [],
    };
  }
  async function send(event: MessageEvent): Promise<void> {
    const jobs = (await cb().hook.jobsFor([event])).flat();
    await t.app.parley.uow.run((tx) => tx.jobs.enqueue(jobs));
    cb().hook.committed(jobs);
  }
  async function settle(): Promise<void> {
    await t.app.parley.jobs.idle();
    await cb().bans.flush();
  }
  /** Bans the rule with 90 failures (45 records, each tried twice), then stores `count` records while banned. */
  async function banAndStore(count: number): Promise<string[]> {
    receiver.respond = () => ({ status: 500 });
    for (let i = 0; i < 45; i++) await send(message());
    await settle();
    expect((await cb().service.listRules(APP))[0]?.status).toBe('banned');
    receiver.respond = () => ({ status: 200 });
    const ids: string[] = [];
    // One at a time: the job drain runs jobs side by side, so records sent together may be stored
    // in any order; re-drive keeps the order they were stored in.
    for (let i = 0; i < count; i++) {
      const m = message();
      ids.push(m.msgId);
      await send(m);
      await settle();
    }
    expect(receiver.requests).toHaveLength(90);
    return ids;
  }

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000', PARLEY_CALLBACK_RESEND_PER_SECOND: '2' } });
    receiver = await CallbackReceiver.start();
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('re-sends the records stored during the ban in order, at the re-send rate, keeping callIds; the key retry goes up', async () => {
    await cb().service.updateSettings(APP, { enabled: true, store_failed: true });
    const rule = await cb().service.createRule(APP, { name: 'main', url: receiver.url, event_types: ['chat'], redrive: true });
    expect(rule.redrive).toBe(true);
    const ids = await banAndStore(3);
    const [key] = await cb().repo.storedKeys(APP);
    const stored = (await cb().repo.storedPage(APP, key!.date, 0, 100)).filter((r) => r.lastError.startsWith('rule banned until '));
    expect(stored.map((r) => r.msgId)).toEqual(ids);

    clock.advance(5 * MIN);
    await cb().tick();
    await settle();
    // Two records a second: the first page holds two, the third waits for the next second.
    expect(receiver.requests.slice(90).map((r) => (JSON.parse(r.body) as CallbackRecord).msg_id)).toEqual(ids.slice(0, 2));
    clock.advance(1_000);
    t.app.parley.jobs.notifyAll();
    await waitFor(() => receiver.requests.length, (n) => n >= 93);
    await settle();
    const resent = receiver.requests.slice(90).map((r) => JSON.parse(r.body) as CallbackRecord);
    expect(resent.map((r) => r.msg_id)).toEqual(ids);
    expect(resent.map((r) => r.callId)).toEqual(stored.map((r) => r.record.callId));
    expect(await cb().repo.storedKeys(APP)).toEqual([{ date: key!.date, size: 45 + 3, retry: 1 }]);
    const after = await cb().repo.storedPage(APP, key!.date, 0, 100);
    expect(after.filter((r) => r.lastResend?.result === 'success').map((r) => r.msgId)).toEqual(ids);
    // Records stored for delivery failures before the ban are not re-driven.
    expect(after.filter((r) => r.lastResend === null)).toHaveLength(45);
  });

  it('leaves the store alone when the rule does not re-drive (the default)', async () => {
    await cb().service.updateSettings(APP, { enabled: true, store_failed: true });
    const rule = await cb().service.createRule(APP, { name: 'main', url: receiver.url, event_types: ['chat'] });
    expect(rule.redrive).toBe(false);
    await banAndStore(2);
    clock.advance(5 * MIN);
    await cb().tick();
    clock.advance(10_000);
    t.app.parley.jobs.notifyAll();
    await settle();
    expect(receiver.requests).toHaveLength(90);
    expect((await cb().repo.storedKeys(APP))[0]?.retry).toBe(0);
    // Turned on later with PUT: the next ban's records are re-driven.
    expect((await cb().service.updateRule(APP, 'main', { redrive: true })).redrive).toBe(true);
  });
});
