import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { localTime } from '../../src/modules/channel/automation-rules.js';

const MINUTE = 60_000;
const ZONE = 'Asia/Shanghai';
const base = {
  time_zone: ZONE,
  business_hours: [] as Array<{ day: number; from: string; to: string }>,
  holidays: [] as string[],
  welcome: { enabled: false, text: '' },
  out_of_hours: { enabled: false, text: '' },
};

describe.each(ENGINES)('automation per skill group on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let n = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(30 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Automation');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  const api = (token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${tenant.tenantId}${path}`, body);
  async function advance(ms: number) {
    clock.advance(ms);
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
  }
  async function group(settings: Record<string, unknown>, agentOptions: { online: boolean; maxSessions?: number } = { online: true }) {
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, `auto-${++n}`);
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: agentOptions.maxSessions ?? 5, online: agentOptions.online });
    const put = await api(tenant.adminToken, 'PUT', `/skill-groups/${queueId}/automation`, settings);
    expect(put.status).toBe(200);
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook-${n}`, { agent_queue_id: queueId });
    expect((await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events: ['closed', 'assigned'] })).status).toBe(200);
    return { queueId, agent, assoc, path: `/hook-${n}` };
  }
  const pushes = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
  const label = (b: { event?: string; ext?: { system?: boolean }; bodies?: Array<{ msg?: string }> }) => b.event ?? `${b.ext?.system ? 'system' : 'reply'}:${b.bodies?.[0]?.msg}`;

  it('stores and validates the setting: time zone, HH:MM, holidays, the order of the timers', async () => {
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, `v-${++n}`);
    expect((await api(tenant.adminToken, 'GET', `/skill-groups/${queueId}/automation`)).body.entity).toBeNull();
    const good = { ...base, business_hours: [{ day: 1, from: '09:00', to: '18:00' }], holidays: ['2027-02-06'], idle_warning_minutes: 5, auto_close_minutes: 10 };
    expect((await api(tenant.adminToken, 'PUT', `/skill-groups/${queueId}/automation`, good)).status).toBe(200);
    expect((await api(tenant.adminToken, 'GET', `/skill-groups/${queueId}/automation`)).body.entity).toEqual(good);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ ...good, time_zone: 'Mars/Olympus' }, 'time_zone'],
      [{ ...good, business_hours: [{ day: 1, from: '25:00', to: '26:00' }] }, 'business_hours'],
      [{ ...good, business_hours: [{ day: 7, from: '09:00', to: '10:00' }] }, 'business_hours'],
      [{ ...good, business_hours: [{ day: 1, from: '18:00', to: '09:00' }] }, 'business_hours[0]'],
      [{ ...good, holidays: ['2027-02-30'] }, 'holidays[0]'],
      [{ ...good, holidays: ['06/02/2027'] }, 'holidays'],
      [{ ...good, idle_warning_minutes: 10, auto_close_minutes: 5 }, 'idle_warning_minutes'],
    ];
    for (const [body, field] of bad) {
      const res = await api(tenant.adminToken, 'PUT', `/skill-groups/${queueId}/automation`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('invalid_request');
      expect(res.body.errorDescription).toContain(field);
    }
    expect((await api(tenant.adminToken, 'PUT', `/skill-groups/999999/automation`, good)).status).toBe(404);
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId] });
    expect((await api(agent.token, 'PUT', `/skill-groups/${queueId}/automation`, good)).status).toBe(403);
  });

  it('greets in business hours, and answers out of hours on a holiday, as system replies', async () => {
    const today = localTime(clock.now(), ZONE).date;
    const open = await group({ ...base, welcome: { enabled: true, text: 'Welcome!' }, out_of_hours: { enabled: true, text: 'Closed now' } });
    const from = `g-${n}`;
    const conv = (await sendCustomerMessage(t.app, open.assoc, { from })).conversation_id;
    const closed = await group({ ...base, holidays: [today], welcome: { enabled: true, text: 'Welcome!' }, out_of_hours: { enabled: true, text: 'Closed now' } });
    await sendCustomerMessage(t.app, closed.assoc, { from: `h-${n}` });
    await advance(0);
    await receiver.waitFor(4);
    expect(pushes(open.path).map(label)).toEqual(['assigned', 'system:Welcome!']);
    expect(pushes(closed.path).map(label)).toEqual(['assigned', 'system:Closed now']);
    const system = pushes(open.path)[1];
    expect(system).toMatchObject({ to: from, channel_type: 'rest', origin_type: 'rest', ext: { system: true, agent: { avatar: null, user_nickname: '' }, agent_username: '' } });
    const history = (await api(tenant.adminToken, 'GET', `/conversations/${conv}/messages`)).body.entities;
    expect(history.map((m: { direction: string; ext: Record<string, unknown> }) => [m.direction, m.ext.system ?? null])).toEqual([
      ['customer', null],
      ['agent', true],
    ]);
  });

  it('tells a waiting customer their place in the queue', async () => {
    const g = await group({ ...base, queue_notice: { enabled: true, text: 'You are number {position} in the queue' } }, { online: false });
    await sendCustomerMessage(t.app, g.assoc, { from: `q1-${n}` });
    await sendCustomerMessage(t.app, g.assoc, { from: `q2-${n}` });
    await advance(0);
    await receiver.waitFor(2);
    expect(pushes(g.path).map(label).sort()).toEqual(['system:You are number 1 in the queue', 'system:You are number 2 in the queue']);
  });

  it('warns an idle customer, starts over when they write, and closes after the set minutes (by system, idle_timeout)', async () => {
    const g = await group({ ...base, idle_warning_minutes: 10, auto_close_minutes: 20, idle_warning_text: 'Still there?' });
    const from = `i-${n}`;
    const conv = (await sendCustomerMessage(t.app, g.assoc, { from })).conversation_id;
    // Pushes settle before the clock jumps (a lease overtaken by the jump would run a push again).
    await advance(0);
    await advance(9 * MINUTE);
    expect(pushes(g.path).map(label)).toEqual(['assigned']);
    await advance(MINUTE);
    await receiver.waitFor(2);
    expect(pushes(g.path).map(label)).toEqual(['assigned', 'system:Still there?']);
    // The customer writes at minute 15: the silence starts over (a second warning at 25, the close at 35).
    await advance(5 * MINUTE);
    await sendCustomerMessage(t.app, g.assoc, { from, text: 'yes' });
    await advance(0);
    await advance(10 * MINUTE);
    await receiver.waitFor(3);
    expect(pushes(g.path).map(label)).toEqual(['assigned', 'system:Still there?', 'system:Still there?']);
    expect((await api(tenant.adminToken, 'GET', `/conversations/${conv}`)).body.entity.state).toBe('processing');
    await advance(10 * MINUTE);
    await receiver.waitFor(4);
    expect(pushes(g.path).map(label)).toEqual(['assigned', 'system:Still there?', 'system:Still there?', 'closed']);
    expect(pushes(g.path)[3]).toMatchObject({ by: 'system', reason: 'idle_timeout' });
    expect((await api(tenant.adminToken, 'GET', `/conversations/${conv}`)).body.entity.state).toBe('closed');
  });

  it('leaves timers off by default', async () => {
    const g = await group(base);
    const conv = (await sendCustomerMessage(t.app, g.assoc, { from: `o-${n}` })).conversation_id;
    await advance(0);
    await advance(24 * 60 * MINUTE);
    expect((await api(tenant.adminToken, 'GET', `/conversations/${conv}`)).body.entity.state).toBe('processing');
    expect(pushes(g.path).map(label)).toEqual(['assigned']);
  });

  it('offers a conversation left waiting to a free agent of any group after the set minutes', async () => {
    const g = await group({ ...base, reoffer_minutes: 5 }, { online: true, maxSessions: 1 });
    await sendCustomerMessage(t.app, g.assoc, { from: `a-${n}` });
    const waiting = (await sendCustomerMessage(t.app, g.assoc, { from: `b-${n}` })).conversation_id;
    await advance(0);
    const otherQueue = await createQueue(t.app, tenant.adminToken, tenant.tenantId, `other-${n}`);
    await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [otherQueue], maxSessions: 3, online: true });
    await advance(4 * MINUTE);
    expect((await api(tenant.adminToken, 'GET', `/conversations/${waiting}`)).body.entity.state).toBe('waiting');
    await advance(MINUTE);
    const after = (await api(tenant.adminToken, 'GET', `/conversations/${waiting}`)).body.entity;
    expect(after.state).toBe('processing');
    // An online agent with room of another group of the tenant (earlier tests' agents count too).
    expect(after.agent.id).not.toBe(g.agent.id);
    await receiver.waitFor(2);
    expect(pushes(g.path).map(label)).toEqual(['assigned', 'assigned']);
  });
});

