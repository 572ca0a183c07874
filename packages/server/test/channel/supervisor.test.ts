/**
 * The supervisor view on both engines, on the injected clock: waiting counts (VIP ones apart),
 * the longest wait, conversations being handled, agents online, each agent's status and load;
 * the tenant admin takes conversations over and transfers them with the existing calls, and the
 * figures follow; status changes are live events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelEvent, SupervisorView } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, setStatus, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T09:00:00Z');

describe.each(ENGINES)('supervisor view on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let adminId: number;
  let other: { tenantId: number; adminToken: string };
  let assoc: TestAssociation;
  let amy: TestAgent;
  let bo: TestAgent;
  let sales: string;
  let billing: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    clock = new FakeClock(T0);
    t = await createTestApp(engine, { clock, env: { PARLEY_API_RATE_LIMIT: '100000' } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Supervised');
    other = await createTenant(t.app, root, 'Unrelated');
    adminId = (await call(t.app, undefined, 'POST', '/api/login', { username: 'supervised-admin@example.com', password: 'tenant-admin-pw' })).body.entity.user.id;
    sales = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'sales');
    billing = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing');
    amy = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [sales], maxSessions: 2, online: true, nickname: 'Amy' });
    bo = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [sales, billing], maxSessions: 3, nickname: 'Bo' });
    await setStatus(t.app, tenant.tenantId, bo, 'busy');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const api = (token: string, method: 'GET' | 'POST', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${tenant.tenantId}${path}`, body);
  const customer = (from: string, queue: string, tags: string[] = []) => sendCustomerMessage(t.app, assoc, { from, ext: { queue_name: queue, visitor: { tags } } }).then((r) => r.conversation_id);
  async function view(): Promise<SupervisorView> {
    const res = await api(tenant.adminToken, 'GET', '/supervisor');
    expect(res.status).toBe(200);
    return res.body.entity;
  }
  const group = (v: SupervisorView, id: string) => v.skill_groups.find((g) => g.queue_id === id);
  const agent = (v: SupervisorView, id: number) => v.agents.find((a) => a.id === id);
  const stateOf = async (id: number) => (await api(tenant.adminToken, 'GET', `/conversations/${id}`)).body.entity;

  it('shows waiting counts, the longest wait, what is being handled, and each agent with status and load; take-over and transfer move them', async () => {
    // Amy (online, room for 2) gets the first two; the rest wait.
    const c1 = await customer('cust-1', 'sales');
    const c2 = await customer('cust-2', 'sales');
    clock.set(T0 + MINUTE);
    const c3 = await customer('cust-3', 'sales');
    clock.set(T0 + 2 * MINUTE);
    const c4 = await customer('cust-4', 'sales', ['vip']);
    clock.set(T0 + 3 * MINUTE);
    const c5 = await customer('cust-5', 'billing');
    clock.set(T0 + 10 * MINUTE);

    const first = await view();
    expect(first.as_of).toBe(T0 + 10 * MINUTE);
    expect(group(first, sales)).toEqual({ queue_id: sales, queue_name: 'sales', waiting: 2, vip_waiting: 1, longest_wait_seconds: 540, oldest_queued_at: T0 + MINUTE, processing: 2, agents_online: 1 });
    expect(group(first, billing)).toEqual({ queue_id: billing, queue_name: 'billing', waiting: 1, vip_waiting: 0, longest_wait_seconds: 420, oldest_queued_at: T0 + 3 * MINUTE, processing: 0, agents_online: 0 });
    expect(group(first, tenant.defaultQueueId)).toMatchObject({ waiting: 0, longest_wait_seconds: null, oldest_queued_at: null, processing: 0 });
    expect(agent(first, amy.id)).toEqual({ id: amy.id, username: amy.username, nickname: 'Amy', avatar: null, role: 'agent', status: 'online', load: 2, max_sessions: 2, queue_ids: [sales] });
    expect(agent(first, bo.id)).toMatchObject({ status: 'busy', load: 0, max_sessions: 3, queue_ids: [sales, billing].sort((a, b) => Number(a) - Number(b)) });
    expect(agent(first, adminId)).toMatchObject({ role: 'admin', status: 'offline', load: 0 });

    // Take over Amy's c1 (transfer to oneself): Amy has room again and gets the VIP one, c4.
    const taken = await api(tenant.adminToken, 'POST', `/conversations/${c1}/transfer`, { agent_id: adminId });
    expect(taken.status).toBe(200);
    expect(taken.body.entity).toMatchObject({ state: 'processing', agent: { id: adminId } });
    expect((await stateOf(c4)).agent.id).toBe(amy.id);
    const second = await view();
    expect(group(second, sales)).toMatchObject({ waiting: 1, vip_waiting: 0, longest_wait_seconds: 540, processing: 3 });
    expect(agent(second, adminId)!).toMatchObject({ load: 1 });
    expect(agent(second, amy.id)!).toMatchObject({ load: 2 });

    // Take over the waiting billing conversation (accept).
    clock.set(T0 + 11 * MINUTE);
    expect((await api(tenant.adminToken, 'POST', `/conversations/${c5}/accept`)).status).toBe(200);
    const third = await view();
    expect(group(third, billing)).toMatchObject({ waiting: 0, longest_wait_seconds: null, oldest_queued_at: null, processing: 1 });
    expect(agent(third, adminId)!).toMatchObject({ load: 2 });
    expect(group(third, sales)).toMatchObject({ waiting: 1, longest_wait_seconds: 600 });

    // Transfer Amy's c2 to the billing group: it waits there from now; Amy takes c3 from sales.
    clock.set(T0 + 12 * MINUTE);
    const moved = await api(tenant.adminToken, 'POST', `/conversations/${c2}/transfer`, { queue_id: billing });
    expect(moved.body.entity).toMatchObject({ state: 'waiting', queue_id: billing, agent: null });
    expect((await stateOf(c3)).agent.id).toBe(amy.id);
    clock.set(T0 + 12 * MINUTE + 30_000);
    const fourth = await view();
    expect(group(fourth, billing)).toMatchObject({ waiting: 1, longest_wait_seconds: 30, oldest_queued_at: T0 + 12 * MINUTE, processing: 1 });
    expect(group(fourth, sales)).toMatchObject({ waiting: 0, longest_wait_seconds: null, processing: 3 });

    // Transfer it on to Bo, and close one of Amy's: loads follow.
    expect((await api(tenant.adminToken, 'POST', `/conversations/${c2}/transfer`, { agent_id: bo.id })).status).toBe(200);
    expect((await api(amy.token, 'POST', `/conversations/${c3}/close`)).status).toBe(200);
    const fifth = await view();
    expect(agent(fifth, bo.id)!).toMatchObject({ status: 'busy', load: 1 });
    expect(agent(fifth, amy.id)!).toMatchObject({ load: 1 });
    expect(group(fifth, billing)).toMatchObject({ waiting: 0, processing: 2 });
  });

  it('publishes agents’ status changes as live events and counts them online', async () => {
    const seen: ChannelEvent[] = [];
    const stop = t.app.parley.channel.events.subscribe(tenant.tenantId, (e) => seen.push(e));
    try {
      await setStatus(t.app, tenant.tenantId, bo, 'online');
    } finally {
      stop();
    }
    expect(seen).toContainEqual({ type: 'agent_status', tenantId: tenant.tenantId, conversationId: null, queueId: null, agentId: bo.id, status: 'online' });
    const v = await view();
    expect(agent(v, bo.id)!.status).toBe('online');
    expect(group(v, billing)!.agents_online).toBe(1);
    expect(group(v, sales)!.agents_online).toBe(2);
  });

  it('is for the tenant admin only', async () => {
    const asAgent = await api(amy.token, 'GET', '/supervisor');
    expect(asAgent.status).toBe(403);
    expect(asAgent.body.errorCode).toBe('forbidden');
    expect((await call(t.app, other.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/supervisor`)).status).toBe(403);
    expect((await call(t.app, undefined, 'GET', `/api/tenants/${tenant.tenantId}/supervisor`)).status).toBe(401);
  });
});
