/**
 * Client Secret rotation with overlap (contract 6.6): during the overlap the send-message API
 * accepts either secret and reply pushes carry `v1,<new> v1,<old>`; it ends at its time (injected
 * clock) or early with `DELETE …/secret/previous`; the overlap is validated (0–604800 s).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { standardWebhookSignature, verifyStandardWebhook } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, customerMessage, postRaw, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../helpers/receiver.js';

const DAY_MS = 86_400_000;

describe.each(ENGINES)('Client Secret rotation with overlap on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let agent: TestAgent;
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Rotation');
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], maxSessions: 100, online: true });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  const secretUrl = (a: TestAssociation) => `/api/tenants/${tenant.tenantId}/rest/channels/${a.channelId}/secret`;
  const rotate = (a: TestAssociation, body?: unknown) => call(t.app, tenant.adminToken, 'POST', secretUrl(a), body);
  const post = (a: TestAssociation, secret: string) => postRaw(t.app, a, customerMessage({ from: `c-${++n}` }), { secret });

  /** One agent reply to a fresh customer of `a`, pushed; answers the request the receiver got. */
  async function pushedReply(a: TestAssociation, secret: string): Promise<ReceivedRequest> {
    const from = `push-${++n}`;
    const sent = await postRaw(t.app, a, customerMessage({ from }), { secret });
    expect(sent.status).toBe(200);
    const res = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.body.entity.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hi' }] });
    expect(res.status).toBe(200);
    await t.app.parley.jobs.idle();
    const got = await receiver.waitFor(1);
    receiver.clear();
    return got[0]!;
  }
  const webhookHeaders = (r: ReceivedRequest) => ({
    'webhook-id': r.headers['webhook-id'] as string,
    'webhook-timestamp': r.headers['webhook-timestamp'] as string,
    'webhook-signature': r.headers['webhook-signature'] as string,
  });

  it('accepts either secret and signs pushes with both during the default 24 h overlap, then only the new one', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    expect((await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels/${a.channelId}`)).body.entity.previousSecretExpiresAt).toBeNull();
    const rotated = await rotate(a);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.entity.clientSecret as string;
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(a.clientSecret);
    expect(rotated.body.entity.previousSecretExpiresAt).toBe(clock.now() + DAY_MS);

    expect((await post(a, a.clientSecret)).status).toBe(200);
    expect((await post(a, fresh)).status).toBe(200);
    const other = await post(a, '0'.repeat(32));
    expect(other.status).toBe(401);
    expect(other.body.errorCode).toBe('invalid_signature');

    const pushed = await pushedReply(a, fresh);
    const headers = webhookHeaders(pushed);
    const ts = Number(headers['webhook-timestamp']);
    expect(headers['webhook-signature']).toBe(
      `${standardWebhookSignature(fresh, headers['webhook-id'], ts, pushed.rawBody)} ${standardWebhookSignature(a.clientSecret, headers['webhook-id'], ts, pushed.rawBody)}`,
    );
    expect(verifyStandardWebhook(a.clientSecret, headers, pushed.rawBody, { nowSeconds: ts })).toBe(true);

    clock.advance(DAY_MS - 1);
    expect((await post(a, a.clientSecret)).status).toBe(200);
    clock.advance(1);
    const late = await post(a, a.clientSecret);
    expect(late.status).toBe(401);
    expect(late.body.errorCode).toBe('invalid_signature');
    expect((await post(a, fresh)).status).toBe(200);
    expect((await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels/${a.channelId}`)).body.entity.previousSecretExpiresAt).toBeNull();
    const after = await pushedReply(a, fresh);
    const afterHeaders = webhookHeaders(after);
    expect(afterHeaders['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifyStandardWebhook(fresh, afterHeaders, after.rawBody, { nowSeconds: Number(afterHeaders['webhook-timestamp']) })).toBe(true);
    expect(verifyStandardWebhook(a.clientSecret, afterHeaders, after.rawBody, { nowSeconds: Number(afterHeaders['webhook-timestamp']) })).toBe(false);
  });

  it('ends the overlap early with DELETE …/secret/previous, and at once with overlap_seconds 0', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    const fresh = (await rotate(a, { overlap_seconds: 3600 })).body.entity.clientSecret as string;
    expect((await post(a, a.clientSecret)).status).toBe(200);
    const ended = await call(t.app, tenant.adminToken, 'DELETE', `${secretUrl(a)}/previous`);
    expect(ended.status).toBe(200);
    expect(ended.body.entity).toMatchObject({ clientSecret: fresh, previousSecretExpiresAt: null });
    expect((await post(a, a.clientSecret)).body.errorCode).toBe('invalid_signature');
    expect((await post(a, fresh)).status).toBe(200);

    const again = (await rotate(a, { overlap_seconds: 0 })).body.entity;
    expect(again.previousSecretExpiresAt).toBeNull();
    expect((await post(a, fresh)).body.errorCode).toBe('invalid_signature');
    await sendCustomerMessage(t.app, { ...a, clientSecret: again.clientSecret }, { from: `c-${++n}` });
  });

  it('keeps only the secret just replaced when rotating during an overlap', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    const second = (await rotate(a)).body.entity.clientSecret as string;
    const third = (await rotate(a, { overlap_seconds: 60 })).body.entity.clientSecret as string;
    expect((await post(a, a.clientSecret)).body.errorCode).toBe('invalid_signature');
    expect((await post(a, second)).status).toBe(200);
    expect((await post(a, third)).status).toBe(200);
  });

  it('refuses an overlap outside 0–604800 seconds with 400, leaving the secret as it was', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 604_801 }, { overlap_seconds: 1.5 }, { overlap_seconds: '60' }, { overlap: 60 }]) {
      const res = await rotate(a, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.status).toBe('FAIL');
    }
    expect((await post(a, a.clientSecret)).status).toBe(200);
    const longest = await rotate(a, { overlap_seconds: 604_800 });
    expect(longest.status).toBe(200);
    expect(longest.body.entity.previousSecretExpiresAt).toBe(clock.now() + 7 * DAY_MS);
  });

  it('answers 404 for DELETE …/secret/previous of an unknown association', async () => {
    const res = await call(t.app, tenant.adminToken, 'DELETE', `/api/tenants/${tenant.tenantId}/rest/channels/999999/secret/previous`);
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('not_found');
  });
});
