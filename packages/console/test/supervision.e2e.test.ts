/**
 * The supervisor view and the reports in a real Chromium against a real server on a FakeClock.
 * The supervisor view shows the queues and agents live (a customer arriving, an agent's status),
 * and the tenant admin takes a conversation over and transfers another from it. The reports page
 * draws one bar per day whose height follows the day's count, shows the times and CSAT, and
 * downloads the same report as CSV. Screenshots at 1366×900 and 390 px into artifacts/console/;
 * every step fails on a page error, console error or failed request.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, createQueue, postRaw, sendCustomerMessage, setStatus, type TestAgent, type TestAssociation } from '../../server/test/helpers/channel.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, launchChromium, newPage, PHONE, screenshot, startServer, unlabelledControls, WIDE, type PageProblems } from './helpers/browser.js';

const SECOND = 1000;

describe('console supervision: supervisor view and reports', { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let clock: FakeClock;
  let pushes: Receiver;
  let tenant: { tenantId: number; adminToken: string };
  let lily: TestAgent;
  let omar: TestAgent;
  let sales: string;
  let assoc: TestAssociation;
  const opened: Array<{ problems: PageProblems; name: string }> = [];

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_TOKEN_TTL_SECONDS: String(30 * 24 * 3600), PARLEY_API_RATE_LIMIT: '100000' });
    clock = server.t.clock as FakeClock;
    pushes = await startReceiver();
    const app = server.t.app;
    const root = await login(app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(app, root, 'Shop');
    sales = await createQueue(app, tenant.adminToken, tenant.tenantId, 'sales');
    await createQueue(app, tenant.adminToken, tenant.tenantId, 'billing');
    lily = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales], nickname: 'Lily', maxSessions: 1 });
    omar = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales], nickname: 'Omar', maxSessions: 3 });
    assoc = await createAssociation(app, tenant.adminToken, tenant.tenantId, `${pushes.url}/push`);
    expect((await call(app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}`, { events: ['csat_invitation'] })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
    await pushes?.close();
  });

  afterEach(async () => {
    const all = opened.flatMap(({ problems, name }) => problems.list().map((p) => `[${name}] ${p}`));
    expect(all).toEqual([]);
  });

  async function open(name: string, viewport: { width: number; height: number }): Promise<Page> {
    return (await openWithProblems(name, viewport)).page;
  }

  async function openWithProblems(name: string, viewport: { width: number; height: number }): Promise<{ page: Page; problems: PageProblems }> {
    const { page, problems } = await newPage(browser, viewport);
    opened.push({ problems, name });
    return { page, problems };
  }

  async function signInAsAdmin(page: Page, link: string): Promise<void> {
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Username').fill('shop-admin@example.com');
    await page.getByLabel('Password').fill('tenant-admin-pw');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: link }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(link);
  }

  const customer = (from: string, queue = 'sales') => sendCustomerMessage(server.t.app, assoc, { from, text: `Hello from ${from}`, ext: { queue_name: queue, visitor: { user_nickname: from } } });
  const conversation = async (id: number) => (await call(server.t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${id}`)).body.entity;

  it('the supervisor view follows queues and agents live; the admin takes over and transfers from it', async () => {
    await setStatus(server.t.app, tenant.tenantId, lily, 'online');
    const first = await customer('Ann');
    const second = await customer('Ben');
    expect((await conversation(first.conversation_id)).agent.nickname).toBe('Lily');

    const page = await open('supervisor-wide', WIDE);
    await signInAsAdmin(page, 'Supervisor view');
    await page.getByText('Live', { exact: true }).waitFor();
    const groups = page.getByRole('table', { name: 'Skill groups, live' });
    const salesRow = groups.locator(`tr[data-queue-id="${sales}"]`);
    const figure = (row: ReturnType<Page['locator']>, name: string) => row.locator(`[data-figure="${name}"]`).textContent();
    await expect.poll(() => figure(salesRow, 'waiting')).toBe('1');
    expect(await figure(salesRow, 'processing')).toBe('1');
    expect(await figure(salesRow, 'online')).toBe('1');
    expect(await figure(salesRow, 'longest-wait')).toMatch(/ s$/);
    const agentsTable = page.getByRole('table', { name: 'Agents, live' });
    const lilyRow = agentsTable.locator(`tr[data-agent-id="${lily.id}"]`);
    expect(await figure(lilyRow, 'status')).toBe('Online');
    expect(await figure(lilyRow, 'load')).toContain('1 / 1');
    const list = page.getByRole('list', { name: 'Open conversations, waiting ones first' });
    await list.getByRole('listitem', { name: 'Conversation with Ben' }).getByText('Waiting', { exact: true }).waitFor();
    await list.getByRole('listitem', { name: 'Conversation with Ann' }).getByText('With Lily', { exact: true }).waitFor();

    // Live: a new customer waits, and Omar's status changes, without a reload.
    await customer('Cleo');
    await expect.poll(() => figure(salesRow, 'waiting')).toBe('2');
    await setStatus(server.t.app, tenant.tenantId, omar, 'busy');
    await expect.poll(() => figure(agentsTable.locator(`tr[data-agent-id="${omar.id}"]`), 'status')).toBe('Busy');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'supervisor');

    // Take over Lily's conversation: the admin holds it, and Lily, with room again, gets Ben's.
    await list.getByRole('listitem', { name: 'Conversation with Ann' }).getByRole('button', { name: 'Take over' }).click();
    await page.getByText('You now hold the conversation with Ann.').waitFor();
    await list.getByRole('listitem', { name: 'Conversation with Ann' }).getByText('With you', { exact: true }).waitFor();
    await list.getByRole('listitem', { name: 'Conversation with Ben' }).getByText('With Lily', { exact: true }).waitFor();
    expect((await conversation(first.conversation_id)).agent.nickname).toBe('Shop admin');
    expect((await conversation(second.conversation_id)).agent.nickname).toBe('Lily');
    await expect.poll(() => figure(salesRow, 'waiting')).toBe('1');

    // Transfer Cleo's waiting conversation to the billing group, then to Omar.
    const cleo = list.getByRole('listitem', { name: 'Conversation with Cleo' });
    await cleo.getByLabel('Transfer the conversation with Cleo to').selectOption({ label: 'billing (0 waiting)' });
    await cleo.getByRole('button', { name: 'Transfer', exact: true }).click();
    await page.getByText('The conversation with Cleo waits in billing.').waitFor();
    await expect.poll(() => figure(salesRow, 'waiting')).toBe('0');
    await cleo.getByLabel('Transfer the conversation with Cleo to').selectOption({ label: 'Omar (busy, 0/3)' });
    await cleo.getByRole('button', { name: 'Transfer', exact: true }).click();
    await page.getByText('The conversation with Cleo is now with Omar.').waitFor();
    await cleo.getByText('With Omar', { exact: true }).waitFor();
    await expect.poll(() => figure(agentsTable.locator(`tr[data-agent-id="${omar.id}"]`), 'load')).toContain('1 / 3');
    await screenshot(page, 'supervisor-after-take-over');

    const phone = await open('supervisor-phone', PHONE);
    await signInAsAdmin(phone, 'Supervisor view');
    await phone.getByRole('list', { name: 'Open conversations, waiting ones first' }).getByRole('listitem', { name: 'Conversation with Cleo' }).waitFor();
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'supervisor-phone');
  });

  it('the reports page charts conversations per day, shows times and CSAT per agent, and downloads the CSV', async () => {
    // Conversations on 2, 3 and 5 November (none on the 4th), answered and closed by Omar.
    const seeds = [
      { from: 'r1', opened: '2026-11-02T09:00:00Z', reply: 30, close: 10 * 60, score: 5 },
      { from: 'r2', opened: '2026-11-02T10:00:00Z', reply: 90, close: 20 * 60, score: 3 },
      { from: 'r3', opened: '2026-11-02T11:00:00Z', reply: 60, close: 15 * 60 },
      { from: 'r4', opened: '2026-11-03T12:00:00Z', reply: 120, close: 30 * 60, score: 4 },
      { from: 'r5', opened: '2026-11-05T08:00:00Z' },
      { from: 'r6', opened: '2026-11-05T09:00:00Z' },
    ];
    const app = server.t.app;
    const now = clock.now();
    await setStatus(app, tenant.tenantId, lily, 'offline');
    for (const s of seeds) {
      const start = Date.parse(s.opened);
      clock.set(start);
      const { conversation_id: id } = await customer(s.from, 'billing');
      if (s.reply === undefined) continue;
      const api = (method: 'POST', path: string, body?: unknown) => call(app, omar.token, method, `/api/tenants/${tenant.tenantId}/conversations/${id}${path}`, body);
      clock.set(start + 10 * SECOND);
      expect((await call(app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${id}/transfer`, { agent_id: omar.id })).status).toBe(200);
      clock.set(start + s.reply * SECOND);
      expect((await api('POST', '/messages', { bodies: [{ type: 'txt', msg: 'Looking into it' }] })).status).toBe(200);
      clock.set(start + s.close * SECOND);
      expect((await api('POST', '/close')).status).toBe(200);
      if (s.score === undefined) continue;
      const rated = await postRaw(app, assoc, JSON.stringify({ from: s.from, conversation_id: id, score: s.score }), { url: `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/ratings` });
      expect(rated.status).toBe(200);
    }
    clock.set(now);

    const { page, problems } = await openWithProblems('reports-wide', WIDE);
    await signInAsAdmin(page, 'Reports');
    const form = page.getByRole('form', { name: 'Report range' });
    await form.getByLabel('From', { exact: true }).fill('2026-11-01');
    await form.getByLabel('To', { exact: true }).fill('2026-11-06');
    await form.getByLabel('Time zone').fill('UTC');
    await form.getByLabel('Skill group').selectOption({ label: 'billing' });
    await form.getByRole('button', { name: 'Show report' }).click();

    // One bar per day; each bar's height is its day's count against the busiest day.
    const chart = page.getByTestId('per-day-chart');
    const bars = chart.locator('rect[data-date]');
    await expect.poll(() => bars.evaluateAll((rects) => rects.map((r) => `${r.getAttribute('data-date')}:${r.getAttribute('data-count')}`))).toEqual([
      '2026-11-01:0',
      '2026-11-02:3',
      '2026-11-03:1',
      '2026-11-04:0',
      '2026-11-05:2',
      '2026-11-06:0',
    ]);
    const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    expect(heights[0]).toBe(0);
    expect(heights[1]! / 3).toBeCloseTo(heights[2]!, 5);
    expect(heights[4]! / 2).toBeCloseTo(heights[2]!, 5);
    expect(heights[1]).toBeGreaterThan(100);
    expect(await chart.getAttribute('aria-label')).toBe('Conversations per day, 2026-11-01 to 2026-11-06: 6 in all, at most 3 on 2026-11-02.');

    // First responses 30, 60, 90, 120 s: median 75 s; handle times 590, 890, 1190, 1790 s: median 1040 s.
    const summary = page.getByRole('region', { name: 'Summary' });
    expect(await summary.locator('[data-figure="conversations"]').textContent()).toBe('6');
    expect(await summary.locator('[data-figure="first-response-median"]').textContent()).toBe('1 min 15 s');
    expect(await summary.locator('[data-figure="handle-time-median"]').textContent()).toBe('17 min 20 s');
    expect(await summary.locator('[data-figure="csat"]').textContent()).toBe('4.00');
    const byAgent = page.getByRole('table', { name: 'Figures by agent' });
    expect(await byAgent.locator(`tr[data-key="${omar.id}"]`).textContent()).toContain('4.00');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'reports');

    // The CSV holds the same figures.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^parley-report-2026-11-01-to-2026-11-06-group\d+\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '').split('\r\n');
    expect(csv[1]).toBe('total,,,,,,6,4,75,111,4,1040,1610,3,4');
    expect(csv.slice(2, 8)).toEqual(['day,2026-11-01,,,,,0,,,,,,,,', 'day,2026-11-02,,,,,3,,,,,,,,', 'day,2026-11-03,,,,,1,,,,,,,,', 'day,2026-11-04,,,,,0,,,,,,,,', 'day,2026-11-05,,,,,2,,,,,,,,', 'day,2026-11-06,,,,,0,,,,,,,,']);

    // A range that is too long is refused with the server's words.
    problems.expectHttpError(400, `/api/tenants/${tenant.tenantId}/reports`);
    await form.getByLabel('From', { exact: true }).fill('2024-01-01');
    await form.getByRole('button', { name: 'Show report' }).click();
    await page.getByText('The report range has 1041 days; at most 366 are allowed').waitFor();

    const phone = await open('reports-phone', PHONE);
    await signInAsAdmin(phone, 'Reports');
    const phoneForm = phone.getByRole('form', { name: 'Report range' });
    await phoneForm.getByLabel('From', { exact: true }).fill('2026-11-01');
    await phoneForm.getByLabel('To', { exact: true }).fill('2026-11-06');
    await phoneForm.getByLabel('Time zone').fill('UTC');
    await phoneForm.getByRole('button', { name: 'Show report' }).click();
    await expect.poll(() => phone.getByTestId('per-day-chart').locator('rect[data-count="3"]').count()).toBe(1);
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'reports-phone');
  });
});
