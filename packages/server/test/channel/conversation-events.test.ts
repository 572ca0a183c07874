import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyStandardWebhook } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, postRaw, sendCustomerMessage, setStatus } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';

const ALL_EVENTS = ['queued', 'position_changed', 'assigned', 'transferred', 'agent_typing', 'closed', 'csat_invitation', 'csat_submitted'];

describe.each(ENGINES)('conversation events for the integrator on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Events');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  const api = (token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${tenant.tenantId}${path}`, body);
  const parsed = (requests: ReceivedRequest[], to: string) => requests.map((r) => JSON.parse(r.body)).filter((b) => b.to === to);
  const label = (b: { event?: string; bodies?: Array<{ msg?: string }> }) => b.event ?? `reply:${b.bodies?.[0]?.msg}`;
  async function settle() {
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
  }

  async function setup(events: string[] | undefined, maxSessions = 1) {
    const queueName = `q-${++n}`;
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, queueName);
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions, nickname: 'Amy', avatar: 'https://cdn.example/amy.png' });
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook-${n}`, { agent_queue_id: queueId });
    if (events) {
      const res = await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events });
      expect(res.status).toBe(200);
      expect(res.body.entity.events).toEqual(events);
    }
    return { queueId, queueName, agent, assoc };
  }

  it('pushes one conversation\'s events in order, signed like replies: queued, position_changed, assigned, agent_typing, reply, closed, csat_invitation, and the rating back as csat_submitted', async () => {
    const { queueName, agent, assoc } = await setup(ALL_EVENTS);
    const first = `w-${n}`;
    const second = `x-${n}`;
    const a = await sendCustomerMessage(t.app, assoc, { from: first });
    const b = await sendCustomerMessage(t.app, assoc, { from: second });
    // The first leaves the line: the second moves up to position 1.
    expect((await api(tenant.adminToken, 'POST', `/conversations/${a.conversation_id}/close`)).status).toBe(200);
    // The agent comes online: the dispatcher hands the second to Amy.
    await setStatus(t.app, tenant.tenantId, agent, 'online');
    const typing = await api(agent.token, 'POST', `/conversations/${b.conversation_id}/typing`);
    expect(typing.status).toBe(200);
    expect(typing.body.entity).toEqual({ pushed: true });
    // A second keystroke moments later pushes nothing.
    expect((await api(agent.token, 'POST', `/conversations/${b.conversation_id}/typing`)).body.entity).toEqual({ pushed: false });
    expect((await api(agent.token, 'POST', `/conversations/${b.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hi' }] })).status).toBe(200);
    expect((await api(agent.token, 'POST', `/conversations/${b.conversation_id}/close`)).status).toBe(200);
    const rating = JSON.stringify({ from: second, conversation_id: b.conversation_id, score: 5, comment: 'Thanks Amy' });
    expect((await postRaw(t.app, assoc, rating, { url: `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/ratings` })).status).toBe(200);
    await settle();
    const got = await receiver.waitFor(11);

    const events = parsed(got, second);
    expect(events.map(label)).toEqual(['queued', 'position_changed', 'assigned', 'agent_typing', 'reply:hi', 'closed', 'csat_invitation', 'csat_submitted']);
    const base = { to: second, tenant_id: tenant.tenantId, channel_id: assoc.channelId, conversation_id: b.conversation_id, timestamp: clock.now() };
    expect(events[0]).toEqual({ event: 'queued', ...base, position: 2, estimated_wait_seconds: null });
    expect(events[1]).toEqual({ event: 'position_changed', ...base, position: 1, estimated_wait_seconds: null });
    expect(events[2]).toEqual({ event: 'assigned', ...base, agent: { user_nickname: 'Amy', avatar: 'https://cdn.example/amy.png' }, queue_name: queueName });
    expect(events[3]).toEqual({ event: 'agent_typing', ...base });
    expect(events[5]).toEqual({ event: 'closed', ...base, by: 'agent', reason: 'closed_by_agent' });
    expect(events[6]).toEqual({ event: 'csat_invitation', ...base });
    expect(events[7]).toEqual({ event: 'csat_submitted', ...base, score: 5, comment: 'Thanks Amy' });
    expect(parsed(got, first).map(label)).toEqual(['queued', 'closed', 'csat_invitation']);
    expect(parsed(got, first)[0]).toMatchObject({ position: 1 });

    for (const r of got) {
      expect(r.path).toBe(`/hook-${n}`);
      const headers = { 'webhook-id': r.headers['webhook-id'] as string, 'webhook-timestamp': r.headers['webhook-timestamp'] as string, 'webhook-signature': r.headers['webhook-signature'] as string };
      expect(verifyStandardWebhook(assoc.clientSecret, headers, r.rawBody, { nowSeconds: Math.floor(clock.now() / 1000) })).toBe(true);
    }
    // The delivery log shows events beside replies, named.
    const log = (await api(tenant.adminToken, 'GET', `/rest/channels/${assoc.channelId}/deliveries`)).body.entities as Array<{ event: string | null; msg_id: string | null; status: string }>;
    expect(log.filter((d) => d.event === 'assigned')).toEqual([expect.objectContaining({ msg_id: null, status: 'succeeded' })]);
  });

  it('retries a failed event and holds the customer\'s later pushes behind it', async () => {
    const { agent, assoc } = await setup(['assigned', 'closed']);
    await setStatus(t.app, tenant.tenantId, agent, 'online');
    receiver.respondOnce({ status: 503 });
    const sent = await sendCustomerMessage(t.app, assoc, { from: `r-${n}` });
    await settle();
    expect((await api(agent.token, 'POST', `/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'after' }] })).status).toBe(200);
    await settle();
    expect(receiver.requests.map((r) => label(JSON.parse(r.body)))).toEqual(['assigned']);
    clock.advance(10_000);
    await settle();
    const got = await receiver.waitFor(3);
    expect(got.map((r) => label(JSON.parse(r.body)))).toEqual(['assigned', 'assigned', 'reply:after']);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
  });

  it('pushes only what the association lists; by default nothing but replies', async () => {
    const { agent, assoc } = await setup(undefined);
    await setStatus(t.app, tenant.tenantId, agent, 'online');
    const sent = await sendCustomerMessage(t.app, assoc, { from: `d-${n}` });
    expect((await api(agent.token, 'POST', `/conversations/${sent.conversation_id}/typing`)).body.entity).toEqual({ pushed: false });
    await api(agent.token, 'POST', `/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'plain' }] });
    await api(agent.token, 'POST', `/conversations/${sent.conversation_id}/close`);
    await settle();
    const got = await receiver.waitFor(1);
    expect(got.map((r) => label(JSON.parse(r.body)))).toEqual(['reply:plain']);
    expect((await api(tenant.adminToken, 'GET', `/rest/channels/${assoc.channelId}`)).body.entity.events).toEqual([]);
  });

  it('tells each waiting conversation behind one that left the line its new position, on the associations that list position_changed', async () => {
    const { queueId, assoc } = await setup(['position_changed']);
    const quiet = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/quiet-${n}`, { agent_queue_id: queueId });
    const head = await sendCustomerMessage(t.app, assoc, { from: `p0-${n}` });
    await sendCustomerMessage(t.app, assoc, { from: `p1-${n}` });
    await sendCustomerMessage(t.app, quiet, { from: `p2-${n}` });
    await sendCustomerMessage(t.app, assoc, { from: `p3-${n}` });
    expect((await api(tenant.adminToken, 'POST', `/conversations/${head.conversation_id}/close`)).status).toBe(200);
    await settle();
    const got = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body));
    // The line was p0, p1, p2, p3: p1 is now first and p3 third; p2's association lists nothing.
    expect(got.map((b) => [b.event, b.to, b.position]).sort()).toEqual([
      ['position_changed', `p1-${n}`, 1],
      ['position_changed', `p3-${n}`, 3],
    ]);
    const log = (await api(tenant.adminToken, 'GET', `/rest/channels/${assoc.channelId}/deliveries`)).body.entities as Array<{ event: string | null; status: string }>;
    expect(log.filter((d) => d.event === 'position_changed').map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect((await api(tenant.adminToken, 'GET', `/rest/channels/${quiet.channelId}/deliveries`)).body.entities).toEqual([]);
  });

  it('tells a long line moving up: every one of the first ten places, and further back those entering another block of ten', async () => {
    const { assoc } = await setup(['position_changed']);
    const sent = [];
    for (let i = 0; i < 25; i++) sent.push(await sendCustomerMessage(t.app, assoc, { from: `l${i}-${n}` }));
    expect((await api(tenant.adminToken, 'POST', `/conversations/${sent[0]!.conversation_id}/close`)).status).toBe(200);
    await settle();
    const got = (await receiver.waitFor(11)).map((r) => JSON.parse(r.body) as { to: string; position: number });
    // l1…l10 are now places 1–10; l20 went from 21 to 20; l11…l19 and l21…l24 stayed in their block.
    expect(got.map((b) => [b.to, b.position]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [`l${i + 1}-${n}`, i + 1]),
      [`l20-${n}`, 20],
    ]);
  });

  it('tells a queued conversation its place in the whole line, past the first hundred, once the setting lists queued', async () => {
    const { assoc } = await setup([]);
    for (let i = 0; i < 101; i++) await sendCustomerMessage(t.app, assoc, { from: `p${i}-${n}` });
    expect((await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events: ['queued'] })).status).toBe(200);
    await sendCustomerMessage(t.app, assoc, { from: `p101-${n}` });
    await settle();
    // The agent is offline: all 101 wait ahead of the last, and only its event is pushed.
    const got = (await receiver.waitFor(1)).map((r) => JSON.parse(r.body) as { event: string; to: string; position: number });
    expect(got.map((b) => [b.event, b.to, b.position])).toEqual([['queued', `p101-${n}`, 102]]);
  });

  it('pushes transferred with the new agent, and queued when handed back to a queue', async () => {
    const { queueId, queueName, agent, assoc } = await setup(['transferred', 'queued'], 5);
    const other = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 5, nickname: 'Bo' });
    await setStatus(t.app, tenant.tenantId, agent, 'online');
    const sent = await sendCustomerMessage(t.app, assoc, { from: `t-${n}` });
    expect((await api(agent.token, 'POST', `/conversations/${sent.conversation_id}/transfer`, { agent_id: other.id })).status).toBe(200);
    expect((await api(tenant.adminToken, 'POST', `/conversations/${sent.conversation_id}/transfer`, { queue_id: queueId })).status).toBe(200);
    await settle();
    const got = (await receiver.waitFor(3)).map((r) => JSON.parse(r.body));
    expect(got.map(label)).toEqual(['transferred', 'transferred', 'queued']);
    expect(got[0]).toMatchObject({ agent: { user_nickname: 'Bo', avatar: null }, queue_name: queueName });
    expect(got[1]).toMatchObject({ agent: null, queue_name: queueName });
  });

  it('refuses an unknown event name in the setting', async () => {
    const { assoc } = await setup(undefined);
    const res = await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events: ['queued', 'teleported'] });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('invalid_request');
  });
});

