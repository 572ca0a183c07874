/**
 * Every page of the console at 1366×900 and on a 390 px wide phone, in a real Chromium: the
 * system admin's pages (an IM app opened for the IM ones) and the tenant admin's, each with data
 * that is long on purpose (long names, URLs and call ids, a stored callback with its connection
 * error, recent attempts in the chart). On each page, once loaded and with its details open:
 * nothing scrolls the page sideways, and no text overflows its box or breaks mid-word
 * (helpers/overflow.ts; wide tables scroll inside their own box). The navigation must list
 * exactly the pages checked here, so a new page is checked too. Each page leaves a screenshot in
 * artifacts/console/ (`system-1366-*`, `system-390-*`, `tenant-1366-*`, `tenant-390-*`).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, createQueue } from '../../server/test/helpers/channel.js';
import { createImApp, createUsers } from '../../server/test/helpers/im.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, freePort, launchChromium, newPage, PHONE, screenshot, startServer, WIDE, type PageProblems } from './helpers/browser.js';
import { scrollingTables, textOverflows } from './helpers/overflow.js';

const SYSTEM_PAGES = ['Tenants', 'IM apps', 'IM users and groups', 'Callback rules', 'Exception store', 'Cluster'];
const TENANT_PAGES = ['Skill groups', 'Agents', 'VIP tags', 'REST associations', 'Supervisor view', 'Reports', 'Workspace', 'Conversation history', 'Canned replies'];
const VIEWPORTS = [
  { name: '1366', size: WIDE },
  { name: '390', size: PHONE },
] as const;

/** What to open on a page once it has loaded, so that its details are checked too. */
const DETAILS: Record<string, (page: Page) => Promise<void>> = {
  'Exception store': async (page) => {
    await page.getByRole('button', { name: /^Open key \d{12}$/ }).first().click();
    await page.getByRole('table', { name: /^Records of key/ }).waitFor();
  },
  'REST associations': async (page) => {
    await page.getByRole('button', { name: /^Show details/ }).first().click();
    await page.getByRole('region', { name: /^Association “/ }).waitFor();
  },
  'IM users and groups': async (page) => {
    await page.getByRole('table', { name: 'Users' }).getByRole('row').nth(2).waitFor();
    await page.getByRole('table', { name: 'Groups' }).getByRole('button', { name: /^Show details/ }).first().click();
    await page.getByRole('region', { name: /^Group / }).waitFor();
  },
};

describe('every console page at 1366×900 and 390 px wide', { timeout: 240_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let receiver: Receiver;
  const opened: Array<{ problems: PageProblems; name: string }> = [];

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_API_RATE_LIMIT: '100000', PARLEY_IM_RATE_LIMIT: '100000' });
    receiver = await startReceiver();
    const app = server.t.app;
    const root = await login(app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(app, root, 'Phone Shop');
    const queue = await createQueue(app, tenant.adminToken, tenant.tenantId, 'after-sales and returns');
    await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [queue], nickname: 'An agent with a rather long nickname' });
    await createAssociation(app, tenant.adminToken, tenant.tenantId, `${receiver.url}/a-long-callback-path/for-the-phone-test/and-the-laptop-test/with?query=parameters&that=go-on`);
    const im = await createImApp(app, 'acme', 'shop');
    const imCall = (method: 'POST' | 'PUT', path: string, body: unknown) => call(app, im.adminToken, method, `${im.base}${path}`, body);
    await createUsers(app, im, 'a-user-with-a-long-name', 'another-user');
    await imCall('PUT', '/users/a-user-with-a-long-name', { nickname: 'Someone with a rather long nickname' });
    await imCall('POST', '/chatgroups', { groupname: 'Customer support escalations for the spring launch', description: 'Where the hard cases go', public: true, owner: 'a-user-with-a-long-name', members: ['another-user'] });
    await imCall('POST', '/chatrooms', { name: 'Launch day questions', description: 'Open to all', owner: 'another-user' });
    await imCall('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    await imCall('POST', '/callbacks/rules', { name: 'main', url: `${receiver.url}/im-callbacks/with/a/long/path/that/goes/on/and/on/for/a/while?token=abcdef0123456789` });
    // A rule nobody answers: its failed callbacks are stored with the connection error.
    await imCall('POST', '/callbacks/rules', { name: 'unreachable', url: `http://127.0.0.1:${await freePort()}/callbacks` });
    expect((await imCall('POST', '/messages/users', { from: 'a-user-with-a-long-name', to: ['another-user'], type: 'txt', body: { msg: 'Hello, is my order on its way?' } })).status).toBe(200);
    app.parley.jobs.notifyAll();
    await app.parley.jobs.idle();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
    await receiver?.close();
  });

  afterEach(async () => {
    const all = opened.splice(0).flatMap(({ problems, name }) => problems.list().map((p) => `[${name}] ${p}`));
    expect(all).toEqual([]);
  });

  async function signIn(name: string, viewport: { width: number; height: number }, username: string, password: string): Promise<Page> {
    const { page, problems } = await newPage(browser, viewport);
    opened.push({ problems, name });
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    return page;
  }

  /** Opens `label` from the navigation and waits until it has loaded. */
  async function visit(page: Page, label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: label, exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(label);
    await expect.poll(() => page.getByText(/^Loading .*…$/).count()).toBe(0);
  }

  async function expectEveryPageFits(page: Page, labels: string[], prefix: string, wide: boolean): Promise<void> {
    const nav = await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allTextContents();
    expect(nav.sort()).toEqual([...labels].sort());
    const problems: string[] = [];
    for (const label of labels) {
      await visit(page, label);
      await DETAILS[label]?.(page);
      if (!(await fitsWidth(page))) problems.push(`${label}: the page scrolls sideways`);
      problems.push(...(await textOverflows(page)).map((p) => `${label}: ${p}`));
      // On a laptop every table fits its box; on a phone a wide one scrolls inside it.
      if (wide) problems.push(...(await scrollingTables(page)).map((p) => `${label}: ${p}`));
      await screenshot(page, `${prefix}-${label.toLowerCase().replace(/\W+/g, '-')}`);
    }
    expect(problems).toEqual([]);
  }

  for (const viewport of VIEWPORTS) {
    it(`the system admin's pages fit at ${viewport.name} px, with an IM app open`, async () => {
      const page = await signIn(`system-admin-${viewport.name}`, viewport.size, ADMIN.username, ADMIN.password);
      await visit(page, 'IM apps');
      await page.getByRole('table', { name: 'IM apps' }).getByRole('button', { name: 'Open acme#shop' }).click();
      await page.locator('.app-bar').getByText('acme#shop', { exact: true }).waitFor();
      await expectEveryPageFits(page, SYSTEM_PAGES, `system-${viewport.name}`, viewport.size === WIDE);
    });

    it(`the tenant admin's pages fit at ${viewport.name} px`, async () => {
      const page = await signIn(`tenant-admin-${viewport.name}`, viewport.size, 'phoneshop-admin@example.com', 'tenant-admin-pw');
      await expectEveryPageFits(page, TENANT_PAGES, `tenant-${viewport.name}`, viewport.size === WIDE);
    });
  }
});
