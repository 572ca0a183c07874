/**
 * The delivery engine end to end below HTTP: messages handed to the post-send hook inside a
 * transaction, the durable job queue, the real outbound sender, a scriptable receiver on
 * 127.0.0.1, and a FakeClock for bans and expiry. Both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, verifyStandardWebhook, type CallbackRecord } from '@parley/protocol';
import type { MessageEvent } from '../../src/modules/im/post-send.js';
import { ThreadedOutboundSender } from '../../src/modules/outbound/threaded.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { waitFor } from '../helpers/im.js';
import { ENGINES } from '../helpers/engines.js';

const APP = 'app-0001';
const MIN = 60_000;

describe.each(ENGINES)('callback delivery engine on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: CallbackReceiver;
  let seq = 0;

  const cb = () => t.app.parley.callbacks;

  function message(over: Partial<MessageEvent> = {}): MessageEvent {
    seq++;
    return {
      appId: APP,
      appkey: 'acme#shop',
      msgId: String(1_000_000 + seq),
      from: 'alice',
      to: 'bob',
      chatType: 'chat',
      timestamp: clock.now(),
      payload: { bodies: [{ type: 'txt', msg: `hello ${seq}` }], ext: { n: seq } },
      source: 'sdk',
      offlineReceivers: [],
      ...over,
    };
  }

  /** What the IM fan-out does: call the hook in its transaction, then wake the queues. */
  async function send(event: MessageEvent): Promise<void> {
    const jobs = (await cb().hook.jobsFor([event])).flat();
    await t.app.parley.uow.run((tx) => tx.jobs.enqueue(jobs));
    cb().hook.committed(jobs);
  }

  async function settle(): Promise<void> {
    await t.app.parley.jobs.idle();
    await cb().bans.flush();
  }

  async function setup(storeFailed: boolean, rule: Record<string, unknown> = {}, appId = APP, url = receiver.url) {
    await cb().service.updateSettings(appId, { enabled: true, store_failed: storeFailed });
    return cb().service.createRule(appId, { name: 'main', url, ...rule });
  }

  const metric = async (name: string) => (await t.app.parley.metrics.getSingleMetricAsString(name)) ?? '';

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000', PARLEY_CALLBACK_RULE_CONCURRENCY: '4' } });
    receiver = await CallbackReceiver.start();
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('posts signed chat and chat_offline records with the body MD5 and Standard Webhooks headers', async () => {
    const rule = await setup(false);
    await send(message({ offlineReceivers: ['bob'] }));
    await send(message({ chatType: 'groupchat', to: 'g1', groupId: 'g1', offlineReceivers: ['carol', 'dave'] }));
    await send(message({ chatType: 'chatroom', to: 'room1', groupId: 'room1', offlineReceivers: [] }));
    await settle();

    const bodies = receiver.bodies<CallbackRecord>().sort((a, b) => Number(a.msg_id) - Number(b.msg_id) || a.eventType.localeCompare(b.eventType) || a.to.localeCompare(b.to));
    expect(bodies.map((b) => [b.eventType, b.chat_type, b.group_id ?? null, b.to])).toEqual([
      ['chat', 'chat', null, 'bob'],
      ['chat_offline', 'chat', null, 'bob'],
      ['chat', 'groupchat', 'g1', 'g1'],
      ['chat_offline', 'groupchat', 'g1', 'carol'],
      ['chat_offline', 'groupchat', 'g1', 'dave'],
      ['chat', 'groupchat', 'room1', 'room1'],
    ]);
    for (const req of receiver.requests) {
      const body = JSON.parse(req.body) as CallbackRecord;
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(body.callId).toMatch(/^acme#shop_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(body.timestamp).toBe(clock.now());
      expect(body.securityVersion).toBe('1.0.0');
      expect(body.security).toBe(callbackSecurity(body.callId, rule.secret, body.timestamp));
      expect(req.headers['x-callback-body-md5']).toBe(md5Hex(req.body));
      expect(req.headers['webhook-id']).toBe(body.callId);
      const headers = { 'webhook-id': req.headers['webhook-id'] as string, 'webhook-timestamp': req.headers['webhook-timestamp'] as string, 'webhook-signature': req.headers['webhook-signature'] as string };
      expect(verifyStandardWebhook(rule.secret, headers, req.body, { nowSeconds: Math.floor(clock.now() / 1000) })).toBe(true);
      expect(body.payload.bodies[0]?.type).toBe('txt');
    }
    expect(await metric('parley_callback_records_total')).toContain('parley_callback_records_total{result="succeeded"} 6');
  });

  it('turns a fan-out batch of messages into its callback jobs at once, in message order, for one rule queue', async () => {
    await setup(false);
    const batch = [message(), message(), message({ appId: 'app-other' }), message()];
    const perMessage = await cb().hook.jobsFor(batch);
    // The other app has no rule: its message makes no job.
    expect(perMessage.map((jobs) => jobs.length)).toEqual([1, 1, 0, 1]);
    const jobs = perMessage.flat();
    const queues = new Set(jobs.map((j) => j.queue));
    expect(queues.size).toBe(1);
    expect([...queues][0]).toMatch(/^callbacks\.rule\.\d+$/);
    expect(jobs.map((j) => (j.payload as { record: { msg_id: string } }).record.msg_id)).toEqual([batch[0], batch[1], batch[3]].map((m) => m!.msgId));
    // Written by the fan-out's transaction; nothing is written by the hook itself.
    expect(await t.app.parley.jobs.depth([...queues][0])).toBe(0);
    await t.app.parley.uow.run((tx) => tx.jobs.enqueue(jobs));
    cb().hook.committed(jobs);
    await settle();
    expect(receiver.bodies<CallbackRecord>().map((b) => b.msg_id).sort()).toEqual([batch[0], batch[1], batch[3]].map((m) => m!.msgId).sort());
  });

  it('applies each rule filter', async () => {
    await cb().service.updateSettings(APP, { enabled: true, store_failed: false });
    const urls = (name: string) => `${receiver.url}/${name}`;
    await cb().service.createRule(APP, { name: 'offline_only', url: urls('offline_only'), event_types: ['chat_offline'] });
    await cb().service.createRule(APP, { name: 'groups_only', url: urls('groups_only'), chat_types: ['groupchat'] });
    await cb().service.createRule(APP, { name: 'img_only', url: urls('img_only'), message_types: ['img'] });
    await cb().service.createRule(APP, { name: 'rest_only', url: urls('rest_only'), sources: ['rest'] });
    await send(message({ offlineReceivers: ['bob'] })); // chat, sdk, txt, offline
    await send(message({ chatType: 'groupchat', to: 'g1', groupId: 'g1' })); // group, sdk, txt
    await send(message({ source: 'rest', payload: { bodies: [{ type: 'img', url: 'http://x/y.png', filename: 'y.png' }], ext: {} } }));
    await settle();
    const got = receiver.requests.map((r) => `${r.path.split('/').pop()}:${(JSON.parse(r.body) as CallbackRecord).eventType}`).sort();
    expect(got).toEqual(['groups_only:chat', 'img_only:chat', 'offline_only:chat_offline', 'rest_only:chat']);
  });

  it('sends nothing while the service or the rule is disabled', async () => {
    await setup(true, { enabled: false });
    await send(message());
    await cb().service.updateRule(APP, 'main', { enabled: true });
    await cb().service.updateSettings(APP, { enabled: false });
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(0);
    expect(await cb().repo.storedKeys(APP)).toEqual([]);
  });

  it('a failure is retried exactly once at once, then stored under the key of the failure time', async () => {
    await setup(true);
    receiver.respond = () => ({ status: 503, body: 'busy' });
    clock.set(Date.UTC(2026, 10, 21, 12, 37, 12));
    const event = message();
    await send(event);
    await settle();
    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.bodies<CallbackRecord>();
    expect(second?.callId).toBe(first?.callId);
    expect(await cb().repo.storedKeys(APP)).toEqual([{ date: '202611211230', size: 1, retry: 0 }]);
    const [stored] = await cb().repo.storedPage(APP, '202611211230', 0, 100);
    expect(stored?.lastError).toBe('HTTP 503');
    expect(stored?.record.callId).toBe(first?.callId);
    expect(stored?.msgId).toBe(event.msgId);
  });

  it('a retry that succeeds is not stored; with the store off a double failure is dropped', async () => {
    await setup(false);
    receiver.respond = (_r, i) => (i === 0 ? { status: 500 } : { status: 200 });
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(2);
    receiver.respond = () => ({ status: 404 });
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(4);
    expect(await cb().repo.storedKeys(APP)).toEqual([]);
    expect(await metric('parley_callback_records_total')).toContain('result="dropped"} 1');
  });

  it('a refused connection and a timeout count as failures', async () => {
    const dead = await CallbackReceiver.start();
    const deadUrl = dead.url;
    await dead.close();
    await setup(true, {}, APP, deadUrl);
    await send(message());
    await settle();
    const [stored] = await cb().repo.storedPage(APP, '202611211200', 0, 100);
    expect(stored?.lastError).toMatch(/^connection: /);

    await cb().service.updateRule(APP, 'main', { url: receiver.url });
    receiver.respond = () => 'hang';
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(2);
    const records = await cb().repo.storedPage(APP, '202611211200', 0, 100);
    expect(records[1]?.lastError).toMatch(/^timeout: /);
  });

  it('an over-long 200 is delivered, not retried, and counted', async () => {
    await setup(true);
    receiver.respond = () => ({ status: 200, body: 'x'.repeat(1001) });
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(1);
    expect(await cb().repo.storedKeys(APP)).toEqual([]);
    expect(await metric('parley_callback_records_total')).toContain('result="overlong"} 1');
    expect((await cb().bans.viewOf(await cb().service.rule(APP, 'main'))).overlong).toHaveLength(1);
  });

  it('90 failures ban the rule; while banned nothing is sent and records are stored; active again after 5 min; the next ban lasts 10 min', async () => {
    await setup(true);
    const banned: unknown[] = [];
    cb().events.on('rule.banned', (e) => banned.push(e));
    receiver.respond = () => ({ status: 500 });
    for (let i = 0; i < 45; i++) await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(90);
    let view = (await cb().service.listRules(APP))[0];
    expect(view).toMatchObject({ status: 'banned', ban_count: 1, banned_until: clock.now() + 5 * MIN });
    expect(banned).toHaveLength(1);
    expect(await metric('parley_callback_rule_bans_total')).toContain('reason="failures"} 1');

    // Banned: healthy again, but nothing is sent; matching records go to the store.
    receiver.respond = () => ({ status: 200 });
    for (let i = 0; i < 3; i++) await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(90);
    expect(await cb().repo.storedKeys(APP)).toEqual([{ date: '202611211200', size: 45 + 3, retry: 0 }]);
    const storedWhileBanned = await cb().repo.storedPage(APP, '202611211200', 0, 100);
    expect(storedWhileBanned.at(-1)?.lastError).toMatch(/^rule banned until /);

    // Persisted: a fresh read of the row shows the ban.
    const row = await t.app.parley.storage.db.selectFrom('callback_rules').select(['status', 'ban_count']).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'banned', ban_count: 1 });

    clock.advance(5 * MIN - 1);
    await cb().tick();
    expect((await cb().service.listRules(APP))[0]?.status).toBe('banned');
    clock.advance(1);
    await cb().tick();
    expect((await cb().service.listRules(APP))[0]?.status).toBe('active');
    await send(message());
    await settle();
    expect(receiver.requests).toHaveLength(91); // no back-fill: only the new record

    receiver.respond = () => ({ status: 500 });
    for (let i = 0; i < 45; i++) await send(message());
    await settle();
    view = (await cb().service.listRules(APP))[0];
    expect(view).toMatchObject({ status: 'banned', ban_count: 2, banned_until: clock.now() + 10 * MIN });
  });

  it('a hung receiver of one app leaves another app within its normal latency', async () => {
    const healthy = await CallbackReceiver.start();
    // The service loads its outbound worker at start (main.ts); this test measures the latency after that.
    await t.app.parley.outbound.warmUp?.();
    try {
      await setup(false);
      await setup(false, {}, 'app-0002', healthy.url);
      receiver.respond = () => 'hang';
      // 40 records for the hung rule: with 4 workers and 2 × 1 s each, they occupy it for ~10 s.
      for (let i = 0; i < 40; i++) await send(message());
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      for (let i = 0; i < 20; i++) await send(message({ appId: 'app-0002', appkey: 'acme#other' }));
      const deadline = Date.now() + 5_000;
      while (healthy.requests.length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(healthy.requests).toHaveLength(20);
      const worst = Math.max(...healthy.requests.map((r) => r.receivedAt - started));
      // Without isolation the healthy callbacks would wait behind the hung rule's ~10 s. The bound
      // leaves room for a loaded CI machine (800 ms was once exceeded at 1.1 s during a full run).
      expect(worst).toBeLessThan(2_500);
      expect(receiver.requests.length).toBeLessThan(40 * 2);
    } finally {
      await healthy.close();
    }
  });

  it('retries an attempt the outbound worker thread died during, and delivers the record', async () => {
    const outbound = t.app.parley.outbound;
    expect(outbound).toBeInstanceOf(ThreadedOutboundSender);
    await setup(false);
    // The first request hangs at the receiver; the worker carrying it is stopped meanwhile.
    receiver.respond = (_req, index) => (index === 0 ? 'hang' : { status: 200, body: 'ok' });
    await send(message());
    // A real worker thread and receiver: on a loaded machine the first request may take seconds to arrive.
    await waitFor(() => receiver.requests.length, (n) => n > 0, 15_000);
    await (outbound as ThreadedOutboundSender).stopWorker();
    await settle();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.headers['webhook-id']).toBe(receiver.requests[0]?.headers['webhook-id']);
    expect(await metric('parley_callback_records_total')).toContain('parley_callback_records_total{result="succeeded"} 1');
  });

  it('stored records expire after 3 days', async () => {
    await setup(true);
    receiver.respond = () => ({ status: 500 });
    await send(message());
    await settle();
    expect(await cb().repo.storedKeys(APP)).toHaveLength(1);
    clock.advance(3 * 24 * 60 * MIN - 1);
    await cb().tick();
    expect(await cb().repo.storedKeys(APP)).toHaveLength(1);
    clock.advance(1);
    await cb().tick();
    expect(await cb().repo.storedKeys(APP)).toEqual([]);
  });
});
