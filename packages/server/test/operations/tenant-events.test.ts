/**
 * Operator events of a customer-service tenant (contract 6.7), on both engines, with real HTTP
 * receivers and the injected clock: the tenant's operations webhook in the /api envelope and its
 * refusals; a reply push that runs out of retries sends `delivery.exhausted`, signed, once, in the
 * same transaction as the delivery's `failed` state; without a webhook nothing is sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { DeliveryExhaustedData } from '@parley/protocol';
import { verifyOperatorEvent } from '@parley/sdk';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const HOUR = 3_600_000;

describe.each(ENGINES)('operator events of a tenant on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let pushes: Receiver;
  let ops: Receiver;
  let tenant: { tenantId: number; adminToken: string };
  let agent: TestAgent;
  let n = 0;
  const base = () => `/api/tenants/${tenant.tenantId}/operations`;
  const jobs = () => t.app.parley.jobs;

  beforeAll(async () => {
    pushes = await startReceiver();
    ops = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Ops');
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'support');
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 100, online: true });
  });
  afterAll(async () => {
    await t?.close();
    await pushes?.close();
    await ops?.close();
  });
  beforeEach(async () => {
    pushes.clear();
    ops.clear();
    pushes.respond({ status: 200 });
    ops.respond({ status: 200 });
    await call(t.app, tenant.adminToken, 'DELETE', base());
  });

  async function advance(ms: number): Promise<void> {
    clock.advance(ms);
    jobs().notifyAll();
    await jobs().idle();
  }
  /** An agent reply whose push fails through the whole retry schedule. */
  async function exhaustedReply(): Promise<{ channelId: number; deliveryId: string; msgId: string }> {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${pushes.url}/dead`);
    const sent = await sendCustomerMessage(t.app, assoc, { from: `cust-${++n}`, ext: { queue_name: 'support' } });
    pushes.respond({ status: 503 });
    const reply = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hello?' }] });
    expect(reply.status).toBe(200);
    await jobs().idle();
    for (let i = 0; i < 10; i++) await advance(15 * HOUR);
    await jobs().idle();
    return { channelId: assoc.channelId, deliveryId: reply.body.entity.delivery.id, msgId: reply.body.entity.msg_id };
  }

  it('sets, reads and removes the webhook in the /api envelope; the secret is shown once', async () => {
    const put = await call(t.app, tenant.adminToken, 'PUT', base(), { url: ops.url });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ status: 'OK', entity: { url: ops.url, secret: expect.stringMatching(/^[0-9a-f]{32}$/), created_at: clock.now(), updated_at: clock.now() } });
    const read = await call(t.app, tenant.adminToken, 'GET', base());
    expect(read.body).toEqual({ status: 'OK', entity: { url: ops.url, created_at: clock.now(), updated_at: clock.now() } });
    const given = await call(t.app, tenant.adminToken, 'PUT', base(), { url: ops.url, secret: 'tenant-operations-secret' });
    expect(given.body.entity.secret).toBe('tenant-operations-secret');
    expect((await call(t.app, tenant.adminToken, 'DELETE', base())).body.entity.url).toBe(ops.url);
    expect((await call(t.app, tenant.adminToken, 'GET', base())).body).toEqual({ status: 'OK', entity: null });
    const again = await call(t.app, tenant.adminToken, 'DELETE', base());
    expect(again.status).toBe(404);
    expect(again.body.errorCode).toBe('not_found');
  });

  it('refuses bad input with 400 invalid_request or invalid_callback_url, agents with 403, other tenants with 403', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'mailto:ops@example.com' }, 'invalid_request'],
      [{ url: ['http://x'] }, 'invalid_request'],
      [{ url: ops.url, secret: true }, 'invalid_request'],
      [{ url: ops.url, secret: 'x'.repeat(129) }, 'invalid_request'],
      [{ url: 'https://exa mple.com/' }, 'invalid_callback_url'],
    ];
    for (const [body, code] of cases) {
      const res = await call(t.app, tenant.adminToken, 'PUT', base(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode, JSON.stringify(body)).toBe(code);
    }
    expect((await call(t.app, tenant.adminToken, 'GET', `${base()}/events?limit=101`)).body.errorCode).toBe('invalid_request');
    expect((await call(t.app, agent.token, 'PUT', base(), { url: ops.url })).status).toBe(403);
    expect((await call(t.app, agent.token, 'GET', `${base()}/events`)).status).toBe(403);
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const other = await createTenant(t.app, root, `Other${engine}`);
    expect((await call(t.app, other.adminToken, 'GET', base())).status).toBe(403);
    expect((await call(t.app, root, 'GET', '/api/tenants/999999/operations')).status).toBe(404);
    expect((await call(t.app, tenant.adminToken, 'GET', base())).body.entity).toBeNull();
  });

  it('a reply push out of retries sends delivery.exhausted, signed, once; the notices show it', async () => {
    const secret = (await call(t.app, tenant.adminToken, 'PUT', base(), { url: ops.url })).body.entity.secret as string;
    const { channelId, deliveryId, msgId } = await exhaustedReply();
    expect(pushes.requests).toHaveLength(10);
    await ops.waitFor(1);
    await advance(HOUR);
    expect(ops.requests).toHaveLength(1);
    const request = ops.requests[0]!;
    // Verified at the (fake) time it was sent, at least an hour ago; now it is stale.
    const sentAt = Number(request.headers['webhook-timestamp']);
    expect(sentAt).toBeLessThanOrEqual(Math.floor((clock.now() - HOUR) / 1000));
    const { eventId, event } = verifyOperatorEvent({ secret, headers: request.headers as Record<string, string>, body: request.rawBody, nowSeconds: sentAt });
    expect(() => verifyOperatorEvent({ secret, headers: request.headers as Record<string, string>, body: request.rawBody, nowSeconds: Math.floor(clock.now() / 1000) })).toThrow();
    expect(event).toEqual({
      type: 'delivery.exhausted',
      timestamp: expect.any(Number),
      data: { channel_id: channelId, delivery_id: deliveryId, msg_id: msgId, last_error: 'HTTP 503' },
    });
    expect(Value.Check(DeliveryExhaustedData, event.data)).toBe(true);
    // Raised with the failed state: the delivery log says failed at the event's time.
    const [failed] = (await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels/${channelId}/deliveries?status=failed`)).body.entities;
    expect(failed).toMatchObject({ id: deliveryId, updatedAt: event.timestamp });

    const notices = await call(t.app, tenant.adminToken, 'GET', `${base()}/events`);
    expect(notices.body).toMatchObject({ status: 'OK', total: 1, entities: [{ id: eventId, type: 'delivery.exhausted', delivery: { status: 'sent', attempts: 1, last_error: null } }] });
  });

  it('sends nothing without a webhook and still fails the delivery and records the notice', async () => {
    const before = (await call(t.app, tenant.adminToken, 'GET', `${base()}/events?limit=100`)).body.total as number;
    const { deliveryId } = await exhaustedReply();
    await waitFor(async () => (await call(t.app, tenant.adminToken, 'GET', `${base()}/events?limit=100`)).body.entities[0], (e) => e?.data?.delivery_id === deliveryId && e.delivery.status === 'no_webhook');
    expect(ops.requests).toHaveLength(0);
    expect((await call(t.app, tenant.adminToken, 'GET', `${base()}/events?limit=100`)).body.total).toBe(before + 1);
  });
});
