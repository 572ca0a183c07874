/**
 * Operator events of an IM app (contract 6.7), on both engines, with a real HTTP receiver and the
 * injected clock: the operations webhook's endpoints and their refusals; a ban sends `rule.banned`
 * with the reason and the last errors, its end `rule.unbanned`; a store key one day from expiry
 * sends `store.expiring` once; a failing receiver gets the event again with back-off, same id;
 * without a webhook nothing is sent and nothing breaks. Signatures are checked with the SDK.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { RuleBannedData, StoreExpiringData } from '@parley/protocol';
import { verifyOperatorEvent, WebhookVerificationError } from '@parley/sdk';
import type { MessageEvent } from '../../src/modules/im/post-send.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe.each(ENGINES)('operator events of an IM app on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let appId: string;
  let rules: CallbackReceiver;
  let ops: CallbackReceiver;
  let seq = 0;
  const cb = () => t.app.parley.callbacks;
  const api = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, payload?: unknown, token = im.adminToken) => call(t.app, token, method, `${im.base}${path}`, payload);

  function message(): MessageEvent {
    seq++;
    return {
      appId,
      appkey: `${im.org}#${im.name}`,
      msgId: String(3_000_000 + seq),
      from: 'alice',
      to: 'bob',
      chatType: 'chat',
      timestamp: clock.now(),
      payload: { bodies: [{ type: 'txt', msg: `hello ${seq}` }], ext: {} },
      source: 'sdk',
      offlineReceivers: [],
    };
  }
  async function send(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const jobs = (await cb().hook.jobsFor([message()])).flat();
      await t.app.parley.uow.run((tx) => tx.jobs.enqueue(jobs));
      cb().hook.committed(jobs);
    }
  }
  /** Lets every due job run and every raised event be written and sent. */
  async function settle(): Promise<void> {
    await t.app.parley.jobs.idle();
    await cb().bans.flush();
    await t.app.parley.operations.flush();
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
  }
  async function advance(ms: number): Promise<void> {
    clock.advance(ms);
    t.app.parley.jobs.notifyAll();
    await settle();
  }
  /** The operator event requests received, each verified with the SDK against `secret` at the (fake) time it was sent. */
  function verified(secret: string) {
    return ops.requests.map((r) => verifyOperatorEvent({ secret, headers: r.headers as Record<string, string>, body: r.body, nowSeconds: Number(r.headers['webhook-timestamp']) }));
  }
  /** Bans the rule `main` with 90 failures (45 records, each tried twice). */
  async function ban(): Promise<void> {
    rules.respond = () => ({ status: 500 });
    await send(45);
    await settle();
    expect((await cb().service.listRules(appId))[0]?.status).toBe('banned');
  }

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000', PARLEY_TOKEN_TTL_SECONDS: String(30 * 24 * 3600), PARLEY_IM_TOKEN_TTL_SECONDS: String(30 * 24 * 3600) } });
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    rules = await CallbackReceiver.start();
    ops = await CallbackReceiver.start('/ops');
    await cb().service.updateSettings(appId, { enabled: true, store_failed: true });
    await cb().service.createRule(appId, { name: 'main', url: rules.url, event_types: ['chat'] });
  });
  afterEach(async () => {
    await t.close();
    await rules.close();
    await ops.close();
  });

  it('sets, reads and removes the webhook; the secret is generated, shown once, and a given one is kept', async () => {
    const put = await api('PUT', '/callbacks/operations', { url: ops.url });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ action: 'put', application: appId, data: { url: ops.url, created_at: clock.now(), updated_at: clock.now() } });
    expect(put.body.data.secret).toMatch(/^[0-9a-f]{32}$/);
    const read = await api('GET', '/callbacks/operations');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ url: ops.url, created_at: clock.now(), updated_at: clock.now() });

    clock.advance(1000);
    const given = await api('PUT', '/callbacks/operations', { url: `${ops.url}?v=2`, secret: 'my-own-operations-secret' });
    expect(given.body.data).toMatchObject({ url: `${ops.url}?v=2`, secret: 'my-own-operations-secret', updated_at: clock.now(), created_at: clock.now() - 1000 });
    // Sealed at rest: the stored column is not the secret.
    const raw = await t.app.parley.storage.db.selectFrom('operations_webhooks').select('secret').executeTakeFirstOrThrow();
    expect(raw.secret).not.toContain('my-own-operations-secret');
    expect((await t.app.parley.operations.service.get({ scope: 'app', id: appId }))?.url).toBe(`${ops.url}?v=2`);

    const removed = await api('DELETE', '/callbacks/operations');
    expect(removed.body.data.url).toBe(`${ops.url}?v=2`);
    expect(removed.body.data.secret).toBeUndefined();
    const gone = await api('GET', '/callbacks/operations');
    expect(gone.status).toBe(200);
    expect(gone.body.data).toBeNull();
    const again = await api('DELETE', '/callbacks/operations');
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('service_resource_not_found');
  });

  it('refuses bad input with 400 and the stable code, and user tokens with 403', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://ops.example.com/x' }, 'illegal_argument'],
      [{ url: 42 }, 'illegal_argument'],
      [{ url: ops.url, secret: 1234567890123456 }, 'illegal_argument'],
      [{ url: ops.url, secret: 'short' }, 'illegal_argument'],
      [{ url: ops.url, extra: true }, 'illegal_argument'],
      [{}, 'illegal_argument'],
      [{ url: 'http://[::1' }, 'invalid_callback_url'],
    ];
    for (const [body, code] of cases) {
      const res = await api('PUT', '/callbacks/operations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toBe(code);
    }
    expect((await api('GET', '/callbacks/operations/events?limit=0')).body.error).toBe('illegal_argument');
    expect((await api('GET', '/callbacks/operations')).body.data).toBeNull();
    await createUsers(t.app, im, 'alice');
    const user = await userToken(t.app, im, 'alice');
    expect((await api('PUT', '/callbacks/operations', { url: ops.url }, user)).status).toBe(403);
    expect((await api('GET', '/callbacks/operations/events', undefined, user)).status).toBe(403);
    expect((await call(t.app, undefined, 'GET', `${im.base}/callbacks/operations`)).status).toBe(401);
  });

  it('refuses an internal URL unless private callbacks are allowed', async () => {
    await t.close();
    t = await createTestApp(engine, { clock, env: { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'false' } });
    im = await createImApp(t.app);
    for (const url of ['http://127.0.0.1:9/ops', 'http://169.254.169.254/latest', 'http://10.0.0.7/x']) {
      const res = await api('PUT', '/callbacks/operations', { url });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toBe('invalid_callback_url');
    }
    expect((await api('GET', '/callbacks/operations')).body.data).toBeNull();
  });

  it('a ban sends rule.banned with the reason and the last errors, signed; its end sends rule.unbanned; the notices list both', async () => {
    const secret = (await api('PUT', '/callbacks/operations', { url: ops.url })).body.data.secret as string;
    const bannedAt = clock.now();
    await ban();
    await waitFor(() => ops.requests.length, (n) => n >= 1);
    const [first] = verified(secret);
    expect(first!.event).toEqual({
      type: 'rule.banned',
      timestamp: bannedAt,
      data: {
        rule: 'main',
        reason: 'failures',
        ban_count: 1,
        banned_until: bannedAt + 5 * MIN,
        last_errors: Array.from({ length: 5 }, () => ({ at: bannedAt, error: 'HTTP 500' })),
      },
    });
    expect(Value.Check(RuleBannedData, first!.event.data)).toBe(true);
    const request = ops.requests[0]!;
    expect(request.path).toBe('/ops');
    expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request.headers['webhook-id']).toBe(first!.eventId);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    // Another key does not verify it.
    expect(() => verifyOperatorEvent({ secret: 'not-the-operations-secret', headers: request.headers as Record<string, string>, body: request.body, nowSeconds: Math.floor(clock.now() / 1000) })).toThrow(WebhookVerificationError);

    await advance(5 * MIN);
    await cb().tick({ retention: false });
    await settle();
    await waitFor(() => ops.requests.length, (n) => n >= 2);
    const events = verified(secret).map((v) => v.event);
    expect(events.map((e) => e.type)).toEqual(['rule.banned', 'rule.unbanned']);
    expect(events[1]).toEqual({ type: 'rule.unbanned', timestamp: bannedAt + 5 * MIN, data: { rule: 'main', ban_count: 1 } });
    expect(new Set(ops.requests.map((r) => r.headers['webhook-id'])).size).toBe(2);

    const notices = await api('GET', '/callbacks/operations/events');
    expect(notices.status).toBe(200);
    expect(notices.body.entities.map((n: { type: string }) => n.type)).toEqual(['rule.unbanned', 'rule.banned']);
    expect(notices.body.entities[1]).toMatchObject({ id: first!.eventId, data: { reason: 'failures' }, delivery: { status: 'sent', attempts: 1, last_error: null } });
    expect((await api('GET', '/callbacks/operations/events?limit=1')).body.entities).toHaveLength(1);
  });

  it('sends store.expiring once, when a key is one day from expiry, from one of two concurrent checks', async () => {
    const secret = (await api('PUT', '/callbacks/operations', { url: ops.url })).body.data.secret as string;
    rules.respond = () => ({ status: 500 });
    const storedAt = clock.now();
    await send(3);
    await settle();
    const [key] = await cb().repo.storedKeys(appId);
    expect(key).toMatchObject({ size: 3 });

    // Kept 72 h: nothing until 48 h after the first record was stored.
    await advance(48 * HOUR - 1);
    await cb().tick();
    await settle();
    expect(ops.requests.filter((r) => r.body.includes('store.expiring'))).toHaveLength(0);

    await advance(1);
    // Two instances' checks at once (the periodic task runs on one; the key's mark decides anyway).
    await Promise.all([cb().tick(), cb().tick()]);
    await settle();
    await waitFor(() => ops.requests.length, (n) => n >= 1);
    await advance(HOUR);
    await cb().tick();
    await settle();
    const expiring = verified(secret).filter((v) => v.event.type === 'store.expiring');
    expect(expiring).toHaveLength(1);
    expect(expiring[0]!.event).toEqual({ type: 'store.expiring', timestamp: storedAt + 48 * HOUR, data: { date: key!.date, size: 3, expires_at: storedAt + 72 * HOUR } });
    expect(Value.Check(StoreExpiringData, expiring[0]!.event.data)).toBe(true);
    expect((await api('GET', '/callbacks/operations/events')).body.entities.filter((n: { type: string }) => n.type === 'store.expiring')).toHaveLength(1);
  });

  it('sends an event again with back-off while the receiver fails, with the same webhook-id, then gives up', async () => {
    const secret = (await api('PUT', '/callbacks/operations', { url: ops.url })).body.data.secret as string;
    ops.respond = () => ({ status: 502 });
    await ban();
    await waitFor(() => ops.requests.length, (n) => n >= 1);
    // The ban's path did not wait for the webhook: the rule is banned and the event is pending.
    const pending = await waitFor(async () => (await api('GET', '/callbacks/operations/events')).body.entities[0].delivery, (d) => d.attempts === 1);
    expect(pending).toEqual({ status: 'pending', attempts: 1, last_error: 'HTTP 502' });
    // Not before the first back-off (10 s, ±20 %).
    await advance(7_000);
    expect(ops.requests).toHaveLength(1);
    await advance(6_000);
    await waitFor(() => ops.requests.length, (n) => n >= 2);
    ops.respond = () => ({ status: 204 });
    await advance(75_000);
    await waitFor(() => ops.requests.length, (n) => n >= 3);
    expect(new Set(ops.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(verified(secret).map((v) => v.event.type)).toEqual(['rule.banned', 'rule.banned', 'rule.banned']);
    await waitFor(async () => (await api('GET', '/callbacks/operations/events')).body.entities[0].delivery.status, (s) => s === 'sent');

    // A receiver that never recovers: five attempts in all, then `failed`.
    ops.respond = () => ({ status: 500 });
    await advance(5 * MIN);
    await cb().tick({ retention: false });
    await settle();
    for (const wait of [13_000, 73_000, 361_000, 2_161_000]) await advance(wait);
    const unbanned = (await api('GET', '/callbacks/operations/events')).body.entities[0];
    expect(unbanned).toMatchObject({ type: 'rule.unbanned', delivery: { status: 'failed', attempts: 5, last_error: 'HTTP 500' } });
    expect(ops.requests).toHaveLength(3 + 5);
  });

  it('without a webhook sends nothing, records the notices and keeps banning and storing', async () => {
    await ban();
    await advance(5 * MIN);
    await cb().tick({ retention: false });
    await settle();
    expect(ops.requests).toHaveLength(0);
    const notices = (await api('GET', '/callbacks/operations/events')).body.entities;
    expect(notices.map((n: { type: string; delivery: { status: string } }) => `${n.type}:${n.delivery.status}`)).toEqual(['rule.unbanned:no_webhook', 'rule.banned:no_webhook']);
    expect((await cb().repo.storedKeys(appId))[0]?.size).toBe(45);
    // A webhook set afterwards receives only later events.
    await api('PUT', '/callbacks/operations', { url: ops.url });
    await ban();
    await waitFor(() => ops.requests.length, (n) => n >= 1);
    await settle();
    expect(ops.bodies().map((b) => b.type)).toEqual(['rule.banned']);
    expect(ops.bodies()[0]).toMatchObject({ data: { ban_count: 2, banned_until: clock.now() + 10 * MIN } });
  });
});
