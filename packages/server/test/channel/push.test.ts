import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { AgentReplyPush, verifyStandardWebhook } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

describe.each(ENGINES)('agent-reply push on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let queueId: string;
  let agent: TestAgent;
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    // Tokens must outlive the days of fake time the retry tests move through.
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Push');
    queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, '售后');
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 100, online: true, nickname: 'Lily', avatar: 'https://cdn.example/lily.png' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.clear();
    receiver.respond({ status: 200, body: 'ok' });
  });
  afterEach(async () => {
    // Leave no retries behind for the next test.
    receiver.respond({ status: 200 });
    clock.advance(24 * 3600 * 1000);
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
  });

  const jobs = () => t.app.parley.jobs;

  async function conversationWithCustomer(assoc: TestAssociation, from = `cust-${++n}`, ext: Record<string, unknown> = { queue_name: '售后' }) {
    const sent = await sendCustomerMessage(t.app, assoc, { from, ext });
    return { id: sent.conversation_id, from };
  }
  const reply = (convId: number, bodies: unknown[]) => call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${convId}/messages`, { bodies });
  const deliveries = async (assoc: TestAssociation, status?: string) =>
    (await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/deliveries${status ? `?status=${status}` : ''}`)).body.entities;
  /** Moves time forward and lets every due push run. */
  async function advance(ms: number) {
    clock.advance(ms);
    jobs().notifyAll();
    await jobs().idle();
  }

  it('pushes replies of each type with every 2.3 field and a valid Standard Webhooks signature', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    const from = `wx_${++n}`;
    await sendCustomerMessage(t.app, assoc, {
      from,
      ext: { queue_name: '售后', visitor: { user_nickname: '小王', email: 'w@example.com', tags: ['vip'] } },
    });
    const conv = (await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}/conversations?mine=true&state=processing`)).body.entities.find(
      (c: { visitor: { customer_id: string } }) => c.visitor.customer_id === from,
    );
    const bodies = [
      [{ type: 'txt', msg: '您好' }],
      [{ type: 'img', url: 'https://cdn.example/a.jpg', filename: 'a.jpg', size: { width: 10, height: 20 } }],
      [{ type: 'audio', url: 'https://cdn.example/a.amr', filename: 'a.amr', length: 3 }],
      [{ type: 'file', url: 'https://cdn.example/a.pdf', filename: 'a.pdf', file_length: 1234 }],
    ];
    const msgIds: string[] = [];
    for (const b of bodies) {
      const res = await reply(conv.id, b);
      expect(res.status).toBe(200);
      expect(res.body.entity.delivery).toEqual({ id: expect.stringMatching(/^dlv_/), status: 'pending' });
      msgIds.push(res.body.entity.msg_id);
    }
    await jobs().idle();
    const got = await receiver.waitFor(4);
    expect(got.map((r) => JSON.parse(r.body).ext.msg_id)).toEqual(msgIds);
    got.forEach((r, i) => {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/hook');
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      const push = JSON.parse(r.body);
      expect(Value.Check(AgentReplyPush, push)).toBe(true);
      expect(push).toEqual({
        bodies: bodies[i],
        ext: {
          msg_id: msgIds[i],
          visitor: {
            user_nickname: '小王',
            true_name: null,
            qq: null,
            email: 'w@example.com',
            phone: null,
            company_name: null,
            description: null,
            weixin: null,
            tags: ['vip'],
            callback_user: from,
          },
          agent: { avatar: 'https://cdn.example/lily.png', user_nickname: 'Lily' },
          queue_id: queueId,
          queue_name: '售后',
          agent_username: agent.username,
        },
        to: from,
        channel_type: 'rest',
        tenant_id: tenant.tenantId,
        origin_type: 'rest',
        channel_id: assoc.channelId,
      });
      const headers = { 'webhook-id': r.headers['webhook-id'] as string, 'webhook-timestamp': r.headers['webhook-timestamp'] as string, 'webhook-signature': r.headers['webhook-signature'] as string };
      expect(headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
      expect(verifyStandardWebhook(assoc.clientSecret, headers, r.rawBody, { nowSeconds: Math.floor(clock.now() / 1000) })).toBe(true);
      expect(verifyStandardWebhook('0'.repeat(32), headers, r.rawBody, { nowSeconds: Math.floor(clock.now() / 1000) })).toBe(false);
    });
    const log = await deliveries(assoc, 'succeeded');
    expect(log).toHaveLength(4);
    expect(log[0].attempts).toEqual([{ attempt: 1, startedAt: clock.now(), statusCode: 200, latencyMs: expect.any(Number), error: null, succeeded: true }]);
    const history = await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${conv.id}/messages`);
    expect(history.body.entities.filter((m: { direction: string }) => m.direction === 'agent').map((m: { delivery: { status: string } }) => m.delivery.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/parley_channel_delivery_outcomes_total\{status="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/parley_channel_messages_total\{direction="agent"\} [1-9]/);
    expect(metrics).toMatch(/parley_channel_conversations_opened_total [1-9]/);
  });

  it('pushes to a changed callback address, signed with a rotated secret, from the next push on, with no time passing', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/before`);
    const conv = await conversationWithCustomer(assoc);
    expect((await reply(conv.id, [{ type: 'txt', msg: 'one' }])).status).toBe(200);
    await jobs().idle();
    const base = `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}`;
    expect((await call(t.app, tenant.adminToken, 'PUT', base, { callback_url: `${receiver.url}/after` })).status).toBe(200);
    const rotated = await call(t.app, tenant.adminToken, 'POST', `${base}/secret`, { overlap_seconds: 0 });
    expect(rotated.status).toBe(200);
    expect((await reply(conv.id, [{ type: 'txt', msg: 'two' }])).status).toBe(200);
    await jobs().idle();
    const got = await receiver.waitFor(2);
    expect(got.map((r) => [r.path, JSON.parse(r.body).bodies[0].msg])).toEqual([
      ['/before', 'one'],
      ['/after', 'two'],
    ]);
    const r = got[1]!;
    const headers = { 'webhook-id': r.headers['webhook-id'] as string, 'webhook-timestamp': r.headers['webhook-timestamp'] as string, 'webhook-signature': r.headers['webhook-signature'] as string };
    const nowSeconds = Math.floor(clock.now() / 1000);
    expect(verifyStandardWebhook(rotated.body.entity.clientSecret, headers, r.rawBody, { nowSeconds })).toBe(true);
    expect(verifyStandardWebhook(assoc.clientSecret, headers, r.rawBody, { nowSeconds })).toBe(false);
  });

  it('retries a failing receiver with the same webhook-id until it recovers', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/flaky`);
    const conv = await conversationWithCustomer(assoc);
    receiver.respond({ status: 500, body: 'down' });
    const sent = await reply(conv.id, [{ type: 'txt', msg: 'are you there?' }]);
    await jobs().idle();
    expect(receiver.requests).toHaveLength(1);
    let [d] = await deliveries(assoc);
    expect(d).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, statusCode: 500, error: 'HTTP 500', succeeded: false }] });
    // Default schedule: the second attempt 5 s (±20 %) later; not before 4 s.
    expect(d.nextAttemptAt - clock.now()).toBeGreaterThanOrEqual(4000);
    expect(d.nextAttemptAt - clock.now()).toBeLessThanOrEqual(6000);
    await advance(3_900);
    expect(receiver.requests).toHaveLength(1);

    receiver.respond({ status: 204 });
    await advance(2_200);
    const got = await receiver.waitFor(2);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    expect(got[1]!.headers['webhook-id']).toBe(sent.body.entity.delivery.id);
    expect(got[1]!.body).toBe(got[0]!.body);
    [d] = await deliveries(assoc);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 204]);
  });

  it('keeps a second reply behind a failing first one (per-customer order)', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/ordered`);
    const conv = await conversationWithCustomer(assoc);
    const other = await conversationWithCustomer(assoc);
    receiver.respond((req) => (JSON.parse(req.body).to === conv.from ? { status: 503 } : { status: 200 }));
    const first = await reply(conv.id, [{ type: 'txt', msg: 'first' }]);
    const second = await reply(conv.id, [{ type: 'txt', msg: 'second' }]);
    await reply(other.id, [{ type: 'txt', msg: 'another customer is not held up' }]);
    await jobs().idle();
    await advance(7_000); // one retry of the first, still failing
    const texts = () => receiver.requests.map((r) => JSON.parse(r.body).bodies[0].msg);
    expect(texts()).toEqual(['first', 'another customer is not held up', 'first']);

    receiver.respond({ status: 200 });
    await advance(40_000);
    expect(texts().slice(3)).toEqual(['first', 'second']);
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids[3]).toBe(first.body.entity.delivery.id);
    expect(ids[4]).toBe(second.body.entity.delivery.id);
  });

  it('honours Retry-After within bounds', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/busy`);
    const conv = await conversationWithCustomer(assoc);
    receiver.respond({ status: 429, headers: { 'retry-after': '120' } });
    await reply(conv.id, [{ type: 'txt', msg: 'later' }]);
    await jobs().idle();
    const [d] = await deliveries(assoc);
    expect(d.nextAttemptAt - clock.now()).toBe(120_000);
    await advance(60_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('marks a delivery failed after the whole schedule, shows it on the message, and re-delivers it', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/dead`);
    const conv = await conversationWithCustomer(assoc);
    receiver.respond({ status: 500 });
    const sent = await reply(conv.id, [{ type: 'txt', msg: 'lost?' }]);
    await jobs().idle();
    for (let i = 0; i < 10; i++) await advance(15 * 3600 * 1000);
    expect(receiver.requests).toHaveLength(10);
    const [failed] = await deliveries(assoc, 'failed');
    expect(failed.id).toBe(sent.body.entity.delivery.id);
    expect(failed.attempts).toHaveLength(10);
    const history = await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${conv.id}/messages`);
    expect(history.body.entities.at(-1).delivery).toEqual({ id: failed.id, status: 'failed', lastError: expect.stringContaining('HTTP 500') });

    receiver.respond({ status: 200 });
    const again = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/deliveries/${failed.id}/redeliver`);
    expect(again.status).toBe(200);
    await jobs().idle();
    await receiver.waitFor(11);
    expect(receiver.requests[10]!.headers['webhook-id']).toBe(failed.id);
    const [done] = await deliveries(assoc, 'succeeded');
    expect(done.attempts).toHaveLength(11);
    const after = await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${conv.id}/messages`);
    expect(after.body.entities.at(-1).delivery).toEqual({ id: failed.id, status: 'succeeded', lastError: null });
    const unknown = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/deliveries/dlv_nope/redeliver`);
    expect(unknown.status).toBe(404);
  });

  it('refuses replies to a conversation that is not accepted or not the agent’s own', async () => {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/x`);
    const waiting = await sendCustomerMessage(t.app, assoc, { from: `w-${++n}`, ext: { queue_id: tenant.defaultQueueId } });
    const res = await reply(waiting.conversation_id, [{ type: 'txt', msg: 'hi' }]);
    expect(res.status).toBe(403);
    const admin = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${waiting.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hi' }] });
    expect(admin.status).toBe(409);
    expect(admin.body.errorCode).toBe('conversation_state');
    const bad = await reply(waiting.conversation_id, [{ type: 'video', url: 'https://x/v', filename: 'v' }]);
    expect(bad.status).toBe(400);
  });

  it('uploads media for agents and serves it from the returned URL', async () => {
    const boundary = '----parley';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="hello.txt"\r\nContent-Type: text/plain\r\n\r\n`),
      Buffer.from('hello media'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/tenants/${tenant.tenantId}/media`,
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode).toBe(200);
    const media = res.json().entity;
    expect(media).toMatchObject({ filename: 'hello.txt', file_length: 11, content_type: 'application/octet-stream' });
    const path = new URL(media.url).pathname;
    const file = await t.app.inject({ method: 'GET', url: path });
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('hello media');
    expect((await t.app.inject({ method: 'GET', url: '/api/media/ffffffffffffffffffffffffffffffff' })).statusCode).toBe(404);
  });
});
