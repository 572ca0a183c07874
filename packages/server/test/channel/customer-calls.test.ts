import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, postRaw, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

describe.each(ENGINES)('signed customer calls: receipts, typing, ratings on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let agent: TestAgent;
  let queueId: string;
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Calls');
    queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'calls');
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 50, online: true, nickname: 'Amy' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  const api = (token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${tenant.tenantId}${path}`, body);
  const signed = (assoc: TestAssociation, what: 'receipts' | 'typing' | 'ratings', body: unknown, options: { secret?: string } = {}) =>
    postRaw(t.app, assoc, JSON.stringify(body), { url: `/api/tenants/${assoc.tenantId}/rest/channels/${assoc.channelId}/${what}`, ...options });
  async function settle() {
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
  }
  async function withEvents(events: string[]) {
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook-${++n}`, { agent_queue_id: queueId });
    expect((await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events })).status).toBe(200);
    return assoc;
  }
  function watch(): ChannelEvent[] {
    const seen: ChannelEvent[] = [];
    t.app.parley.channel.events.subscribe(tenant.tenantId, (e) => seen.push(e));
    return seen;
  }

  it('receipts mark agent messages delivered then read, never back, shown on the history and live', async () => {
    const assoc = await withEvents([]);
    const from = `r-${n}`;
    const conv = (await sendCustomerMessage(t.app, assoc, { from })).conversation_id;
    const ids: string[] = [];
    for (const msg of ['one', 'two']) ids.push((await api(agent.token, 'POST', `/conversations/${conv}/messages`, { bodies: [{ type: 'txt', msg }] })).body.entity.msg_id);
    const seen = watch();

    const delivered = await signed(assoc, 'receipts', { to: from, msg_ids: ids, status: 'delivered' });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({ status: 'OK', entity: { updated: 2 } });
    expect((await signed(assoc, 'receipts', { to: from, msg_ids: [ids[0]], status: 'read' })).body.entity).toEqual({ updated: 1 });
    // A late `delivered` does not undo `read`; another customer's id changes nothing.
    expect((await signed(assoc, 'receipts', { to: from, msg_ids: [ids[0]], status: 'delivered' })).body.entity).toEqual({ updated: 0 });
    expect((await signed(assoc, 'receipts', { to: 'someone-else', msg_ids: ids, status: 'read' })).body.entity).toEqual({ updated: 0 });

    const history = (await api(agent.token, 'GET', `/conversations/${conv}/messages`)).body.entities as Array<{ msg_id: string; direction: string; receipt: string | null }>;
    expect(history.map((m) => [m.direction, m.receipt])).toEqual([
      ['customer', null],
      ['agent', 'read'],
      ['agent', 'delivered'],
    ]);
    const receipts = seen.filter((e) => e.type === 'receipt').map((e) => ({ ...e, msg_ids: [...e.msg_ids].sort() }));
    expect(receipts).toEqual([
      expect.objectContaining({ type: 'receipt', conversationId: conv, agentId: agent.id, msg_ids: [...ids].sort(), status: 'delivered' }),
      expect.objectContaining({ type: 'receipt', conversationId: conv, msg_ids: [ids[0]], status: 'read' }),
    ]);
  });

  it('checks the HMAC exactly as the send-message API and validates the bodies', async () => {
    const assoc = await withEvents([]);
    const bad = await signed(assoc, 'receipts', { to: 'c', msg_ids: ['m'], status: 'read' }, { secret: '0'.repeat(32) });
    expect(bad.status).toBe(401);
    expect(bad.body.errorCode).toBe('invalid_signature');
    const none = await postRaw(t.app, assoc, '{"from":"c"}', { url: `/api/tenants/${assoc.tenantId}/rest/channels/${assoc.channelId}/typing`, authorization: null });
    expect(none.status).toBe(401);
    expect(none.body.errorCode).toBe('missing_authorization');
    const wrongStatus = await signed(assoc, 'receipts', { to: 'c', msg_ids: ['m'], status: 'seen' });
    expect(wrongStatus.status).toBe(400);
    expect(wrongStatus.body.errorCode).toBe('invalid_request');
    expect((await signed(assoc, 'ratings', { from: 'c', conversation_id: 1, score: 6 })).body.errorCode).toBe('invalid_request');
    expect((await signed(assoc, 'receipts', { to: 'c', msg_ids: [], status: 'read' })).status).toBe(400);
  });

  it('shows customer typing live to the agents; 404 without an open conversation', async () => {
    const assoc = await withEvents([]);
    const from = `ty-${n}`;
    const conv = (await sendCustomerMessage(t.app, assoc, { from })).conversation_id;
    const seen = watch();
    const res = await signed(assoc, 'typing', { from });
    expect(res.status).toBe(200);
    expect(res.body.entity).toEqual({ conversation_id: conv });
    expect(seen).toEqual([{ type: 'customer_typing', tenantId: tenant.tenantId, conversationId: conv, queueId: Number(queueId), agentId: agent.id }]);
    const missing = await signed(assoc, 'typing', { from: 'nobody' });
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('not_found');
  });

  it('takes one rating of a closed, invited conversation; pushed back as csat_submitted after the invitation', async () => {
    const assoc = await withEvents(['closed', 'csat_invitation', 'csat_submitted']);
    const from = `rt-${n}`;
    const conv = (await sendCustomerMessage(t.app, assoc, { from })).conversation_id;
    const early = await signed(assoc, 'ratings', { from, conversation_id: conv, score: 5 });
    expect(early.status).toBe(409);
    expect(early.body.errorCode).toBe('conversation_state');
    expect((await api(agent.token, 'POST', `/conversations/${conv}/close`)).status).toBe(200);
    expect((await signed(assoc, 'ratings', { from: 'impostor', conversation_id: conv, score: 1 })).status).toBe(409);
    const rated = await signed(assoc, 'ratings', { from, conversation_id: conv, score: 4, comment: 'Quick' });
    expect(rated.status).toBe(200);
    expect(rated.body.entity).toEqual({ score: 4, comment: 'Quick', createdAt: clock.now() });
    const again = await signed(assoc, 'ratings', { from, conversation_id: conv, score: 1 });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('conversation_state');
    expect((await api(tenant.adminToken, 'GET', `/conversations/${conv}`)).body.entity.rating).toEqual({ score: 4, comment: 'Quick', createdAt: clock.now() });
    await settle();
    await receiver.waitFor(3);
    const got = receiver.requests.filter((r) => r.path === `/hook-${n}`).map((r) => JSON.parse(r.body));
    expect(got.map((b) => b.event)).toEqual(['closed', 'csat_invitation', 'csat_submitted']);
    expect(got[2]).toEqual({ event: 'csat_submitted', to: from, tenant_id: tenant.tenantId, channel_id: assoc.channelId, conversation_id: conv, timestamp: clock.now(), score: 4, comment: 'Quick' });
  });

  it('refuses a rating when the association does not invite ratings', async () => {
    const assoc = await withEvents(['closed']);
    const from = `ni-${n}`;
    const conv = (await sendCustomerMessage(t.app, assoc, { from })).conversation_id;
    await api(agent.token, 'POST', `/conversations/${conv}/close`);
    const res = await signed(assoc, 'ratings', { from, conversation_id: conv, score: 3 });
    expect(res.status).toBe(409);
    expect((await api(tenant.adminToken, 'GET', `/conversations/${conv}`)).body.entity.rating).toBeNull();
  });
});
