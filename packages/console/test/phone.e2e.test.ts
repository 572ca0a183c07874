/**
 * Every page of the console on a 390 px wide phone, in a real Chromium: the system admin's pages
 * (an IM app opened for the IM ones) and the tenant admin's, each with data in its tables, fit the
 * screen with no sideways scroll; wide tables scroll inside their own box. The navigation must list
 * exactly the pages checked here, so a new page is checked too. Each page leaves a screenshot in
 * artifacts/console/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, createQueue } from '../../server/test/helpers/channel.js';
import { createImApp, createUsers } from '../../server/test/helpers/im.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, launchChromium, newPage, PHONE, screenshot, startServer, type PageProblems } from './helpers/browser.js';

const SYSTEM_PAGES = ['Tenants', 'IM apps', 'IM users and groups', 'Callback rules', 'Exception store', 'Cluster'];
const TENANT_PAGES = ['Skill groups', 'Agents', 'VIP tags', 'REST associations', 'Workspace', 'Conversation history'];

describe('every console page at 390 px wide', { timeout: 180_000 }, () => {
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
    await createAssociation(app, tenant.adminToken, tenant.tenantId, `${receiver.url}/a-long-callback-path/for-the-phone-test`);
    const im = await createImApp(app, 'acme', 'shop');
    await createUsers(app, im, 'a-user-with-a-long-name', 'another-user');
    await call(app, im.adminToken, 'PUT', `${im.base}/callbacks/service`, { enabled: true, store_failed: true });
    await call(app, im.adminToken, 'POST', `${im.base}/callbacks/rules`, { name: 'main', url: `${receiver.url}/im-callbacks/with/a/long/path` });
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

  async function phone(name: string, username: string, password: string): Promise<Page> {
    const { page, problems } = await newPage(browser, PHONE);
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

  async function expectEveryPageFits(page: Page, labels: string[], prefix: string): Promise<void> {
    const nav = await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allTextContents();
    expect(nav.sort()).toEqual([...labels].sort());
    const overflowing: string[] = [];
    for (const label of labels) {
      await visit(page, label);
      if (!(await fitsWidth(page))) overflowing.push(label);
      await screenshot(page, `${prefix}-390-${label.toLowerCase().replace(/\W+/g, '-')}`);
    }
    expect(overflowing).toEqual([]);
  }

  it("the system admin's pages fit, with an IM app open", async () => {
    const page = await phone('system-admin', ADMIN.username, ADMIN.password);
    await visit(page, 'IM apps');
    await page.getByRole('table', { name: 'IM apps' }).getByRole('button', { name: 'Open acme#shop' }).click();
    await page.locator('.app-bar').getByText('acme#shop', { exact: true }).waitFor();
    await expectEveryPageFits(page, SYSTEM_PAGES, 'system');
  });

  it("the tenant admin's pages fit", async () => {
    const page = await phone('tenant-admin', 'phoneshop-admin@example.com', 'tenant-admin-pw');
    await expectEveryPageFits(page, TENANT_PAGES, 'tenant');
  });
});
