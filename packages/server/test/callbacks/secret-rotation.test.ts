/**
 * Callback rule secret rotation with overlap (contract 6.6): during the overlap records carry
 * `webhook-signature: v1,<new> v1,<old>` and `security` by the new secret, so the SDK's
 * `verifyCallback` accepts either secret; the overlap ends at its time (injected clock) or early
 * with `DELETE …/secret/previous`; an overlap outside 0–604800 s is a 400 in the IM envelope.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbackSecurity, standardWebhookSignature, type CallbackRecord } from '@parley/protocol';
import { verifyCallback } from '@parley/sdk';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

const DAY_MS = 86_400_000;

describe.each(ENGINES)('callback rule secret rotation on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  let n = 0;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);

  beforeAll(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob');
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: false });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  /** Sends one message to online-less bob and answers the `chat` record the rule `name` received. */
  async function oneRecord(name: string) {
    const text = `m-${++n}`;
    expect((await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: text } })).status).toBe(200);
    await t.app.parley.jobs.idle();
    const request = receiver.requests.find((r) => r.path === `/callback?rule=${name}` && r.body.includes(text) && (JSON.parse(r.body) as CallbackRecord).eventType === 'chat');
    expect(request).toBeDefined();
    return { record: JSON.parse(request!.body) as CallbackRecord, headers: request!.headers as Record<string, string>, body: request!.body };
  }
  const nowSeconds = () => Math.floor(clock.now() / 1000);

  it('signs with both secrets during the default 24 h overlap, security by the new one; then with the new one only', async () => {
    const old = (await api('POST', '/callbacks/rules', { name: 'rot', url: `${receiver.url}?rule=rot`, event_types: ['chat'] })).body.data.secret as string;
    const rotated = await api('POST', '/callbacks/rules/rot/secret');
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(old);
    expect(rotated.body.data.previous_secret_expires_at).toBe(clock.now() + DAY_MS);
    expect((await api('GET', '/callbacks/rules/rot')).body.data.previous_secret_expires_at).toBe(clock.now() + DAY_MS);

    const during = await oneRecord('rot');
    expect(during.record.security).toBe(callbackSecurity(during.record.callId, fresh, during.record.timestamp));
    const ts = Number(during.headers['webhook-timestamp']);
    expect(during.headers['webhook-signature']).toBe(
      `${standardWebhookSignature(fresh, during.record.callId, ts, during.body)} ${standardWebhookSignature(old, during.record.callId, ts, during.body)}`,
    );
    for (const secret of [fresh, old, [fresh, old]]) {
      expect(verifyCallback({ secret, headers: during.headers, body: during.body, nowSeconds: nowSeconds() }).callId).toBe(during.record.callId);
    }

    clock.advance(DAY_MS);
    expect((await api('GET', '/callbacks/rules/rot')).body.data.previous_secret_expires_at).toBeNull();
    const after = await oneRecord('rot');
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyCallback({ secret: fresh, headers: after.headers, body: after.body, nowSeconds: nowSeconds() }).callId).toBe(after.record.callId);
    expect(() => verifyCallback({ secret: old, headers: after.headers, body: after.body, nowSeconds: nowSeconds() })).toThrow();
    await api('DELETE', '/callbacks/rules/rot');
  });

  it('ends the overlap early with DELETE …/secret/previous, and at once with overlap_seconds 0', async () => {
    const old = (await api('POST', '/callbacks/rules', { name: 'early', url: `${receiver.url}?rule=early`, event_types: ['chat'] })).body.data.secret as string;
    const fresh = (await api('POST', '/callbacks/rules/early/secret', { overlap_seconds: 3600 })).body.data.secret as string;
    expect((await oneRecord('early')).headers['webhook-signature']!.split(' ')).toHaveLength(2);
    const ended = await api('DELETE', '/callbacks/rules/early/secret/previous');
    expect(ended.status).toBe(200);
    expect(ended.body.data).toMatchObject({ name: 'early', secret: fresh, previous_secret_expires_at: null });
    const after = await oneRecord('early');
    expect(() => verifyCallback({ secret: old, headers: after.headers, body: after.body, nowSeconds: nowSeconds() })).toThrow();

    const none = await api('POST', '/callbacks/rules/early/secret', { overlap_seconds: 0 });
    expect(none.body.data.previous_secret_expires_at).toBeNull();
    const single = await oneRecord('early');
    expect(single.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => verifyCallback({ secret: fresh, headers: single.headers, body: single.body, nowSeconds: nowSeconds() })).toThrow();
    await api('DELETE', '/callbacks/rules/early');
  });

  it("signs with the rule's keys made once: after a rotation the next record carries the new key at once, and both during the overlap", async () => {
    const old = (await api('POST', '/callbacks/rules', { name: 'warm', url: `${receiver.url}?rule=warm`, event_types: ['chat'] })).body.data.secret as string;
    // Records before the rotation: the rule's key is made and kept.
    for (let i = 0; i < 2; i++) {
      const before = await oneRecord('warm');
      expect(before.headers['webhook-signature']).toBe(standardWebhookSignature(old, before.record.callId, Number(before.headers['webhook-timestamp']), before.body));
    }
    const fresh = (await api('POST', '/callbacks/rules/warm/secret', { overlap_seconds: 60 })).body.data.secret as string;
    const during = await oneRecord('warm');
    const ts = Number(during.headers['webhook-timestamp']);
    expect(during.record.security).toBe(callbackSecurity(during.record.callId, fresh, during.record.timestamp));
    expect(during.headers['webhook-signature']).toBe(
      `${standardWebhookSignature(fresh, during.record.callId, ts, during.body)} ${standardWebhookSignature(old, during.record.callId, ts, during.body)}`,
    );
    // The overlap ends at its time on the same cached rule: one signature, the new key's.
    clock.advance(60_000);
    const after = await oneRecord('warm');
    expect(after.headers['webhook-signature']).toBe(standardWebhookSignature(fresh, after.record.callId, Number(after.headers['webhook-timestamp']), after.body));
    // A second rotation with no overlap: the newest key alone, at once.
    const newest = (await api('POST', '/callbacks/rules/warm/secret', { overlap_seconds: 0 })).body.data.secret as string;
    const single = await oneRecord('warm');
    expect(single.headers['webhook-signature']).toBe(standardWebhookSignature(newest, single.record.callId, Number(single.headers['webhook-timestamp']), single.body));
    await api('DELETE', '/callbacks/rules/warm');
  });

  it('refuses an overlap outside 0–604800 s with 400 illegal_argument, and an unknown rule with 404', async () => {
    const secret = (await api('POST', '/callbacks/rules', { name: 'valid', url: `${receiver.url}?rule=valid` })).body.data.secret as string;
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 604_801 }, { overlap_seconds: 0.5 }, { overlap_seconds: null }, { other: 1 }]) {
      const res = await api('POST', '/callbacks/rules/valid/secret', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
    }
    expect((await api('GET', '/callbacks/rules/valid')).body.data.secret).toBe(secret);
    expect((await api('POST', '/callbacks/rules/valid/secret', { overlap_seconds: 604_800 })).body.data.previous_secret_expires_at).toBe(clock.now() + 7 * DAY_MS);
    expect((await api('POST', '/callbacks/rules/nothing/secret')).status).toBe(404);
    expect((await api('DELETE', '/callbacks/rules/nothing/secret/previous')).status).toBe(404);
    await api('DELETE', '/callbacks/rules/valid');
  });
});
