/**
 * Reports over a seeded set of conversations on the injected clock, on both engines: conversations
 * per day in UTC, across the Asia/Shanghai day boundary and across New York's end of daylight
 * saving; first-response and handle times (median and p90, interpolated); CSAT per agent and per
 * skill group; the filters; the CSV export; the range checks and who may read reports.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, postRaw, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { reportTimes as postgresReportTimes } from '../../src/storage/postgres/migrations/114-report-times.js';
import { reportTimes as sqliteReportTimes } from '../../src/storage/sqlite/migrations/114-report-times.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const at = (iso: string) => Date.parse(iso);

interface Seed {
  customer: string;
  opened: string;
  queue: 'sales' | 'billing';
  agent?: 'amy' | 'bo';
  /** After the opening, in ms. */
  acceptAfter?: number;
  replyAfter?: number;
  closeAfter?: number;
  score?: number;
}

/**
 * The conversations, in the order they open. Expected figures (range 2026-11-02 … 2026-11-04, UTC):
 * first responses 20, 40, 60, 120 s; handle times 290, 475, 570, 1140 s; ratings 5, 4, 2.
 */
const SEEDS: Seed[] = [
  // 23:30 on 1 November in New York (EST since 06:00 UTC that day), 2 November in UTC: never taken.
  { customer: 'c6-waiting', opened: '2026-11-02T04:30:00Z', queue: 'billing' },
  { customer: 'c1', opened: '2026-11-02T10:00:00Z', queue: 'sales', agent: 'amy', acceptAfter: 30 * SECOND, replyAfter: 60 * SECOND, closeAfter: 10 * MINUTE, score: 5 },
  { customer: 'c2', opened: '2026-11-02T11:00:00Z', queue: 'sales', agent: 'amy', acceptAfter: 10 * SECOND, replyAfter: 20 * SECOND, closeAfter: 5 * MINUTE, score: 4 },
  // 01:00 on 3 November in Shanghai.
  { customer: 'c3', opened: '2026-11-02T17:00:00Z', queue: 'billing', agent: 'bo', acceptAfter: 60 * SECOND, replyAfter: 120 * SECOND, closeAfter: 20 * MINUTE, score: 2 },
  { customer: 'c4', opened: '2026-11-03T09:00:00Z', queue: 'sales', agent: 'bo', acceptAfter: 5 * SECOND, replyAfter: 40 * SECOND, closeAfter: 8 * MINUTE },
  // 07:30 on 4 November in Shanghai; accepted, never answered, still open.
  { customer: 'c5-open', opened: '2026-11-03T23:30:00Z', queue: 'billing', agent: 'amy', acceptAfter: 100 * SECOND },
  // After the range.
  { customer: 'c7-later', opened: '2026-11-05T12:00:00Z', queue: 'sales', agent: 'amy', acceptAfter: 1 * SECOND, replyAfter: 2 * SECOND, closeAfter: 3 * SECOND, score: 1 },
];

describe.each(ENGINES)('reports on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let other: { tenantId: number; adminToken: string };
  let assoc: TestAssociation;
  let agents: Record<'amy' | 'bo', TestAgent>;
  let queues: Record<'sales' | 'billing', string>;

  beforeAll(async () => {
    receiver = await startReceiver();
    clock = new FakeClock(at('2026-11-01T00:00:00Z'));
    t = await createTestApp(engine, { clock, env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(30 * 24 * 3600) } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Reports');
    other = await createTenant(t.app, root, 'Elsewhere');
    queues = {
      sales: await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'sales'),
      billing: await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing'),
    };
    // Offline agents: nothing is assigned by itself, every conversation waits until accepted.
    const both = [queues.sales, queues.billing];
    agents = {
      amy: await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: both, nickname: 'Amy' }),
      bo: await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: both, nickname: 'Bo' }),
    };
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    // A rating needs the invitation, which is written when the association lists it.
    expect((await api(tenant.adminToken, 'PUT', `/rest/channels/${assoc.channelId}`, { events: ['csat_invitation'] })).status).toBe(200);
    for (const seed of SEEDS) await play(seed);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  function api(token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
    return call(t.app, token, method, `/api/tenants/${tenant.tenantId}${path}`, body);
  }

  async function play(seed: Seed): Promise<void> {
    const opened = at(seed.opened);
    clock.set(opened);
    const { conversation_id: id } = await sendCustomerMessage(t.app, assoc, { from: seed.customer, text: 'Hello', ext: { queue_name: seed.queue } });
    if (!seed.agent || seed.acceptAfter === undefined) return;
    const agent = agents[seed.agent];
    clock.set(opened + seed.acceptAfter);
    expect((await api(agent.token, 'POST', `/conversations/${id}/accept`)).status).toBe(200);
    if (seed.replyAfter !== undefined) {
      clock.set(opened + seed.replyAfter);
      expect((await api(agent.token, 'POST', `/conversations/${id}/messages`, { bodies: [{ type: 'txt', msg: 'On it' }] })).status).toBe(200);
      // A second reply does not move the first response.
      clock.set(opened + seed.replyAfter + SECOND);
      expect((await api(agent.token, 'POST', `/conversations/${id}/messages`, { bodies: [{ type: 'txt', msg: 'Done' }] })).status).toBe(200);
    }
    if (seed.closeAfter === undefined) return;
    clock.set(opened + seed.closeAfter);
    expect((await api(agent.token, 'POST', `/conversations/${id}/close`)).status).toBe(200);
    if (seed.score === undefined) return;
    const rating = JSON.stringify({ from: seed.customer, conversation_id: id, score: seed.score });
    const rated = await postRaw(t.app, assoc, rating, { url: `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/ratings` });
    expect(rated.status).toBe(200);
  }

  const report = (query: string, token = tenant.adminToken) => api(token, 'GET', `/reports?${query}`);

  it('counts conversations per day and computes both times and CSAT exactly, in total, per agent and per skill group', async () => {
    const res = await report('from=2026-11-02&to=2026-11-04');
    expect(res.status).toBe(200);
    const r = res.body.entity;
    expect(r.range).toEqual({ from: '2026-11-02', to: '2026-11-04', time_zone: 'UTC', start: at('2026-11-02T00:00:00Z'), end: at('2026-11-05T00:00:00Z'), days: 3 });
    expect(r.filter).toEqual({ queue_id: null, agent_id: null });
    expect(r.per_day).toEqual([
      { date: '2026-11-02', conversations: 4 },
      { date: '2026-11-03', conversations: 2 },
      { date: '2026-11-04', conversations: 0 },
    ]);
    // Sorted first responses 20, 40, 60, 120: median at rank 1.5, p90 at rank 2.7 (ranks from 0).
    expect(r.totals).toEqual({
      conversations: 6,
      first_response: { count: 4, median_seconds: 50, p90_seconds: 102 },
      handle_time: { count: 4, median_seconds: 522.5, p90_seconds: 969 },
      csat: { count: 3, average: 3.67 },
    });
    expect(r.agents).toEqual([
      {
        agent_id: agents.amy.id,
        nickname: 'Amy',
        conversations: 3,
        first_response: { count: 2, median_seconds: 40, p90_seconds: 56 },
        handle_time: { count: 2, median_seconds: 430, p90_seconds: 542 },
        csat: { count: 2, average: 4.5 },
      },
      {
        agent_id: agents.bo.id,
        nickname: 'Bo',
        conversations: 2,
        first_response: { count: 2, median_seconds: 80, p90_seconds: 112 },
        handle_time: { count: 2, median_seconds: 807.5, p90_seconds: 1073.5 },
        csat: { count: 1, average: 2 },
      },
    ]);
    expect(r.skill_groups).toEqual([
      {
        queue_id: queues.billing,
        queue_name: 'billing',
        conversations: 3,
        first_response: { count: 1, median_seconds: 120, p90_seconds: 120 },
        handle_time: { count: 1, median_seconds: 1140, p90_seconds: 1140 },
        csat: { count: 1, average: 2 },
      },
      {
        queue_id: queues.sales,
        queue_name: 'sales',
        conversations: 3,
        first_response: { count: 3, median_seconds: 40, p90_seconds: 56 },
        handle_time: { count: 3, median_seconds: 475, p90_seconds: 551 },
        csat: { count: 2, average: 4.5 },
      },
    ]);
  });

  it('counts days in the chosen time zone: across the Shanghai midnight and the end of daylight saving in New York', async () => {
    const shanghai = (await report('from=2026-11-02&to=2026-11-04&time_zone=Asia/Shanghai')).body.entity;
    expect(shanghai.range).toMatchObject({ time_zone: 'Asia/Shanghai', start: at('2026-11-01T16:00:00Z'), end: at('2026-11-04T16:00:00Z') });
    expect(shanghai.per_day.map((d: { conversations: number }) => d.conversations)).toEqual([3, 2, 1]);
    expect(shanghai.totals.conversations).toBe(6);

    // 1 November in New York is 25 hours long: from 04:00 UTC (EDT) to 05:00 UTC on the 2nd (EST).
    const newYork = (await report('from=2026-11-01&to=2026-11-03&time_zone=America/New_York')).body.entity;
    expect(newYork.range).toMatchObject({ start: at('2026-11-01T04:00:00Z'), end: at('2026-11-04T05:00:00Z') });
    expect(newYork.per_day).toEqual([
      { date: '2026-11-01', conversations: 1 },
      { date: '2026-11-02', conversations: 3 },
      { date: '2026-11-03', conversations: 2 },
    ]);
  });

  it('narrows to one skill group or one agent; an empty range has no figures', async () => {
    const sales = (await report(`from=2026-11-02&to=2026-11-04&queue_id=${queues.sales}`)).body.entity;
    expect(sales.filter).toEqual({ queue_id: queues.sales, agent_id: null });
    expect(sales.totals).toEqual({
      conversations: 3,
      first_response: { count: 3, median_seconds: 40, p90_seconds: 56 },
      handle_time: { count: 3, median_seconds: 475, p90_seconds: 551 },
      csat: { count: 2, average: 4.5 },
    });
    expect(sales.per_day.map((d: { conversations: number }) => d.conversations)).toEqual([2, 1, 0]);
    expect(sales.skill_groups.map((g: { queue_name: string }) => g.queue_name)).toEqual(['sales']);

    const bo = (await report(`from=2026-11-02&to=2026-11-04&agent_id=${agents.bo.id}`)).body.entity;
    expect(bo.totals.conversations).toBe(2);
    expect(bo.totals.handle_time).toEqual({ count: 2, median_seconds: 807.5, p90_seconds: 1073.5 });
    expect(bo.agents.map((a: { nickname: string }) => a.nickname)).toEqual(['Bo']);

    const later = (await report('from=2026-11-05&to=2026-11-05')).body.entity;
    expect(later.totals).toEqual({ conversations: 1, first_response: { count: 1, median_seconds: 2, p90_seconds: 2 }, handle_time: { count: 1, median_seconds: 2, p90_seconds: 2 }, csat: { count: 1, average: 1 } });

    const empty = (await report('from=2026-10-01&to=2026-10-02')).body.entity;
    expect(empty.totals).toEqual({ conversations: 0, first_response: { count: 0, median_seconds: null, p90_seconds: null }, handle_time: { count: 0, median_seconds: null, p90_seconds: null }, csat: { count: 0, average: null } });
    expect(empty.per_day).toEqual([
      { date: '2026-10-01', conversations: 0 },
      { date: '2026-10-02', conversations: 0 },
    ]);
    expect(empty.agents).toEqual([]);
    expect(empty.skill_groups).toEqual([]);
  });

  it('exports the same figures as a CSV download', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/tenants/${tenant.tenantId}/reports.csv?from=2026-11-02&to=2026-11-04`, headers: { authorization: `Bearer ${tenant.adminToken}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="parley-report-2026-11-02-to-2026-11-04.csv"');
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const lines = res.body.slice(1).split('\r\n');
    expect(lines[0]).toBe(
      'section,date,agent_id,agent,queue_id,skill_group,conversations,first_response_count,first_response_median_seconds,first_response_p90_seconds,handle_time_count,handle_time_median_seconds,handle_time_p90_seconds,csat_count,csat_average',
    );
    expect(lines.slice(1)).toEqual([
      'total,,,,,,6,4,50,102,4,522.5,969,3,3.67',
      'day,2026-11-02,,,,,4,,,,,,,,',
      'day,2026-11-03,,,,,2,,,,,,,,',
      'day,2026-11-04,,,,,0,,,,,,,,',
      `agent,,${agents.amy.id},Amy,,,3,2,40,56,2,430,542,2,4.5`,
      `agent,,${agents.bo.id},Bo,,,2,2,80,112,2,807.5,1073.5,1,2`,
      `skill_group,,,,${queues.billing},billing,3,1,120,120,1,1140,1140,1,2`,
      `skill_group,,,,${queues.sales},sales,3,3,40,56,3,475,551,2,4.5`,
      '',
    ]);
    const bad = await t.app.inject({ method: 'GET', url: `/api/tenants/${tenant.tenantId}/reports.csv?from=2026-11-04&to=2026-11-02`, headers: { authorization: `Bearer ${tenant.adminToken}` } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'FAIL', errorCode: 'invalid_report_range' });
  });

  it('checks the range: real dates in order, a known zone, at most 366 days', async () => {
    const code = async (query: string) => {
      const res = await report(query);
      return `${res.status} ${res.body.errorCode ?? 'OK'}`;
    };
    expect(await code('from=2026-02-30&to=2026-03-02')).toBe('400 invalid_report_range');
    expect(await code('from=2026/11/01&to=2026-11-02')).toBe('400 invalid_report_range');
    expect(await code('from=2026-11-04&to=2026-11-02')).toBe('400 invalid_report_range');
    expect(await code('from=2026-11-01&to=2026-11-02&time_zone=Mars%2FOlympus')).toBe('400 invalid_report_range');
    expect((await report('from=2026-11-04&to=2026-11-02')).body.errorDescription).toBe('Invalid report range: to (2026-11-02) is before from (2026-11-04)');
    expect(await code('from=2025-01-01&to=2026-01-02')).toBe('400 report_range_too_long');
    expect((await report('from=2025-01-01&to=2026-01-02')).body.errorDescription).toBe('The report range has 367 days; at most 366 are allowed');
    // A leap year is exactly 366 days.
    expect(await code('from=2024-01-01&to=2024-12-31')).toBe('200 OK');
    expect((await report('from=2024-01-01&to=2024-12-31')).body.entity.per_day).toHaveLength(366);
    expect(await code('to=2026-11-02')).toBe('400 invalid_request');
    expect(await code('from=2026-11-01&to=2026-11-02&queue_id=999999')).toBe('400 invalid_request');
    expect(await code(`from=2026-11-01&to=2026-11-02&agent_id=${agents.amy.id + 1000}`)).toBe('400 invalid_request');
  });

  it('migration 114 gives conversations stored before it their first agent reply', async () => {
    const before = (await report('from=2026-11-02&to=2026-11-05')).body.entity;
    const { db } = t.app.parley.storage;
    await sql`UPDATE conversations SET first_reply_at = NULL`.execute(db);
    expect((await report('from=2026-11-02&to=2026-11-05')).body.entity.totals.first_response.count).toBe(0);
    const backfill = (engine === 'sqlite' ? sqliteReportTimes : postgresReportTimes).statements.find((s) => s.startsWith('UPDATE'))!;
    await sql.raw(backfill).execute(db);
    expect((await report('from=2026-11-02&to=2026-11-05')).body.entity).toEqual(before);
  });

  it('is for the tenant admin: 403 for agents and for another tenant', async () => {
    expect((await report('from=2026-11-02&to=2026-11-04', agents.amy.token)).status).toBe(403);
    const foreign = await call(t.app, other.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/reports?from=2026-11-02&to=2026-11-04`);
    expect(foreign.status).toBe(403);
    expect(foreign.body.errorCode).toBe('forbidden');
    expect((await call(t.app, undefined, 'GET', `/api/tenants/${tenant.tenantId}/reports?from=2026-11-02&to=2026-11-04`)).status).toBe(401);
  });
});
