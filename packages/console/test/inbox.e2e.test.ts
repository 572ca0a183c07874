/**
 * The inbox in a real Chromium against a real server: a tenant admin works as an agent (the
 * workspace, accept, reply, close, the team's conversations); the conversation history filters,
 * searches and pages closed conversations and opens one read-only; the workspace fills the window
 * in three columns with the status in the header and unread markers, and at 390 px wide it is one
 * column with no sideways scroll. The server runs on a FakeClock, moved by the test for the
 * history's time range. Every step fails on a page error, console error or failed request, and
 * leaves a screenshot in artifacts/console/.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAssociation, type TestAgent } from '../../server/test/helpers/channel.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, launchChromium, newPage, PHONE, screenshot, startServer, unlabelledControls, WIDE, type PageProblems } from './helpers/browser.js';

const MINUTE = 60_000;

/** One of the workspace's views (Waiting, Mine, Team): a tab whose name starts with the view's and ends with its count. */
const view = (page: Page, name: 'Waiting' | 'Mine' | 'Team') => page.getByRole('tab', { name: new RegExp(`^${name}`) });

/** A grey PNG of `width` × `height` pixels: an image reply that makes its bubble taller once it loads. */
function greyPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc(height * (width + 1), 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter byte of each row
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

describe('console inbox: admin as agent, history, layout', { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let clock: FakeClock;
  let pushes: Receiver;
  let tenant: { tenantId: number; adminToken: string };
  let lily: TestAgent;
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
    const sales = await createQueue(app, tenant.adminToken, tenant.tenantId, 'sales');
    await createQueue(app, tenant.adminToken, tenant.tenantId, 'billing');
    lily = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales], nickname: 'Lily' });
    assoc = await createAssociation(app, tenant.adminToken, tenant.tenantId, `${pushes.url}/push`);
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

  async function open(name: string, viewport?: { width: number; height: number }): Promise<Page> {
    const { page, problems } = await newPage(browser, viewport);
    opened.push({ problems, name });
    return page;
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const customer = (from: string, text: string, queue: string) => sendCustomerMessage(server.t.app, assoc, { from, text, ext: { queue_name: queue, visitor: { user_nickname: from } } });
  const api = (token: string, method: 'GET' | 'POST', path: string) => call(server.t.app, token, method, `/api/tenants/${tenant.tenantId}/conversations${path}`);

  it('a tenant admin has the workspace: sees every conversation, sets a status, accepts, replies and closes', async () => {
    const billing = await customer('cust-billing', 'My invoice is wrong', 'billing');
    const sales = await customer('cust-sales', 'Is the kettle in stock?', 'sales');
    expect((await api(lily.token, 'POST', `/${sales.conversation_id}/accept`)).status).toBe(200);

    const page = await open('tenant-admin');
    await signIn(page, 'shop-admin@example.com', 'tenant-admin-pw');
    await page.getByRole('link', { name: 'Workspace' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');

    // The status is in the header, for the admin too.
    const status = page.getByRole('banner').getByRole('group', { name: 'My status' });
    await expect.poll(() => status.getByRole('button', { name: 'Offline' }).getAttribute('aria-pressed')).toBe('true');
    await status.getByRole('button', { name: 'Busy' }).click();
    await expect.poll(() => status.getByRole('button', { name: 'Busy' }).getAttribute('aria-pressed')).toBe('true');

    // A skill group the admin is not in: the admin sees it waiting, and sees Lily's conversation.
    await page.getByRole('list', { name: 'Waiting conversations, VIP first' }).getByText('cust-billing').waitFor();
    await view(page, 'Team').click();
    const team = page.getByRole('region', { name: 'Team conversations' });
    await team.getByText('cust-sales').waitFor();
    expect(await team.textContent()).toContain('Agent: Lily');

    await view(page, 'Waiting').click();
    await page.getByRole('list', { name: 'Waiting conversations, VIP first' }).getByRole('button', { name: /cust-billing/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with cust-billing' });
    await conversation.getByRole('button', { name: 'Accept' }).click();
    await conversation.getByText('In progress').waitFor();
    await view(page, 'Mine').click();
    await page.getByRole('region', { name: 'My conversations' }).getByText('cust-billing').waitFor();
    const reply = conversation.getByLabel('Reply', { exact: true });
    await reply.fill('The admin will fix your invoice');
    await reply.press('Enter');
    const [push] = await pushes.waitFor(1);
    expect(JSON.parse(push!.body)).toMatchObject({ to: 'cust-billing', bodies: [{ type: 'txt', msg: 'The admin will fix your invoice' }] });
    await conversation.locator('[data-delivery-status="succeeded"]').waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'workspace-admin');

    await conversation.getByRole('button', { name: 'Close conversation' }).click();
    await conversation.getByRole('alertdialog', { name: 'Close the conversation' }).getByRole('button', { name: 'Close it' }).click();
    await page.getByText('No conversation open').waitFor();
    const closed = (await api(tenant.adminToken, 'GET', `/${billing.conversation_id}`)).body.entity;
    expect(closed).toMatchObject({ state: 'closed', agent: { nickname: 'Shop admin' } });
  });

  it('the history lists closed conversations, filters, searches message text, pages with the cursor and opens one read-only', async () => {
    // 22 closed conversations of Lily's, one a minute, on the server's clock.
    const start = clock.advance(10 * MINUTE);
    for (let i = 0; i < 22; i++) {
      const text = i === 7 ? 'I want a REFUND for the broken parcel' : `Question number ${i}`;
      const { conversation_id: id } = await customer(`cust-h${i}`, text, 'sales');
      expect((await api(lily.token, 'POST', `/${id}/accept`)).status).toBe(200);
      expect((await api(lily.token, 'POST', `/${id}/close`)).status).toBe(200);
      clock.advance(MINUTE);
    }
    const page = await open('agent-history');
    await signIn(page, lily.username, 'agent-password');
    await page.getByRole('link', { name: 'Conversation history' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Conversation history');
    const filters = page.getByRole('form', { name: 'Find conversations' });
    const found = page.getByRole('list', { name: 'Conversations found' });
    const search = async () => {
      await filters.getByRole('button', { name: 'Search', exact: true }).click();
      await filters.getByRole('button', { name: 'Search', exact: true }).waitFor();
    };
    const names = () => found.locator('.conversation-name').allTextContents();

    // Closed ones, most recent first, a page of 20; "Load more" follows the cursor.
    await search();
    await expect.poll(async () => (await names()).length).toBe(20);
    expect((await names()).slice(0, 3)).toEqual(['cust-h21', 'cust-h20', 'cust-h19']);
    await page.getByRole('button', { name: 'Load more' }).click();
    // Lily's 22: the billing conversation the admin closed is in a skill group she is not in.
    await expect.poll(async () => (await names()).length).toBe(22);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(new Set(await names()).size).toBe(22);

    // Message text, any case.
    await filters.getByLabel('Message text').fill('refund');
    await search();
    await expect.poll(() => names()).toEqual(['cust-h7']);

    // Customer id; then a time range of three minutes (the browser runs in UTC).
    await filters.getByLabel('Message text').fill('');
    await filters.getByLabel('Customer ID').fill('cust-h3');
    await search();
    await expect.poll(() => names()).toEqual(['cust-h3']);
    await filters.getByLabel('Customer ID').fill('');
    const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    await filters.getByLabel('Active from').fill(local(start + 5 * MINUTE));
    await filters.getByLabel('Active until').fill(local(start + 7 * MINUTE));
    await search();
    await expect.poll(() => names()).toEqual(['cust-h7', 'cust-h6', 'cust-h5']);

    // Opening one shows its messages, read-only.
    await found.getByRole('button', { name: /cust-h7/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with cust-h7' });
    await conversation.getByText('I want a REFUND for the broken parcel').waitFor();
    await conversation.getByText('Closed', { exact: true }).waitFor();
    await conversation.getByText('its history is read-only here').waitFor();
    expect(await conversation.getByLabel('Reply', { exact: true }).count()).toBe(0);
    expect(await conversation.getByRole('button').count()).toBe(0);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'history');

    // The tenant admin filters by agent, skill group and state.
    const admin = await open('admin-history');
    await signIn(admin, 'shop-admin@example.com', 'tenant-admin-pw');
    await admin.getByRole('link', { name: 'Conversation history' }).click();
    const adminFilters = admin.getByRole('form', { name: 'Find conversations' });
    const adminFound = admin.getByRole('list', { name: 'Conversations found' });
    await adminFilters.getByLabel('Agent').selectOption({ label: 'Shop admin' });
    await adminFilters.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => adminFound.locator('.conversation-name').allTextContents()).toEqual(['cust-billing']);
    await adminFilters.getByLabel('Agent').selectOption({ label: 'Any agent' });
    await adminFilters.getByLabel('Skill group').selectOption({ label: 'billing' });
    await adminFilters.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => adminFound.locator('.conversation-name').allTextContents()).toEqual(['cust-billing']);
    await adminFilters.getByLabel('Skill group').selectOption({ label: 'Any skill group' });
    await adminFilters.getByLabel('State').selectOption({ label: 'In progress' });
    await adminFilters.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => adminFound.locator('.conversation-name').allTextContents()).toEqual(['cust-sales']);
  });

  it('the conversation pane: the nickname on customer bubbles, the given profile, the newest message in view after an image loads, closing asks first', async () => {
    for (let i = 1; i <= 14; i++) {
      await sendCustomerMessage(server.t.app, assoc, { from: 'cust-mia', text: `Question ${i} about my order`, ext: { queue_name: 'sales', visitor: { user_nickname: 'Mia' } } });
    }
    const page = await open('agent-pane', WIDE);
    await signIn(page, lily.username, 'agent-password');
    await page.getByRole('list', { name: 'Waiting conversations, VIP first' }).getByRole('button', { name: /Mia/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with Mia' });
    await conversation.getByRole('button', { name: 'Accept' }).click();
    await conversation.getByText('In progress').waitFor();

    // The customer's bubbles carry the name the header shows, not the raw customer id.
    const customerMeta = await conversation.locator('.from-customer .bubble-meta').first().textContent();
    expect(customerMeta).toContain('Mia');
    expect(customerMeta).not.toContain('cust-mia');
    // The profile lists what was given and nothing that was not.
    const profile = page.getByRole('region', { name: 'Customer profile' });
    await profile.getByText('Mia', { exact: true }).waitFor();
    const profileText = await profile.textContent();
    for (const absent of ['Real name', 'E-mail', 'Phone', 'not given']) expect(profileText).not.toContain(absent);
    // The actions share one line above the messages, which take most of the window's height.
    const history = conversation.getByRole('list', { name: 'Messages' });
    const heights = await history.evaluate((el) => ({ pane: el.clientHeight, window: window.innerHeight }));
    expect(heights.pane).toBeGreaterThan(heights.window * 0.5);

    // An image reply whose bytes arrive after its bubble is shown: once it loads, the newest message is still in view.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/media/**', async (route: Route) => {
      if (route.request().method() === 'GET') await held;
      await route.continue();
    });
    const distanceFromEnd = () => history.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await conversation.getByLabel('Attach image').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: greyPng(160, 400) });
    const image = conversation.locator('.from-agent img');
    await image.waitFor({ state: 'attached' });
    expect(await distanceFromEnd()).toBeLessThanOrEqual(2);
    release();
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalHeight)).toBe(400);
    await expect.poll(distanceFromEnd).toBeLessThanOrEqual(2);
    await page.unroute('**/media/**');
    await screenshot(page, 'workspace-conversation-pane');

    // Closing asks first; Cancel keeps the conversation.
    await conversation.getByRole('button', { name: 'Close conversation' }).click();
    const confirm = conversation.getByRole('alertdialog', { name: 'Close the conversation' });
    expect(await confirm.textContent()).toContain('Close the conversation with Mia?');
    await screenshot(page, 'workspace-close-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await conversation.getByText('In progress').count()).toBe(1);
    await conversation.getByRole('button', { name: 'Close conversation' }).click();
    await confirm.getByRole('button', { name: 'Close it' }).click();
    await page.getByText('No conversation open').waitFor();
  });

  it('the workspace fills the window in three columns, shows the status in the header and marks unread conversations', async () => {
    const page = await open('agent-layout');
    await signIn(page, lily.username, 'agent-password');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');
    await page.getByText('Live', { exact: true }).waitFor();
    await page.getByRole('banner').getByRole('group', { name: 'My status' }).getByRole('button', { name: 'Offline', pressed: true }).waitFor();

    const u1 = await customer('cust-u1', 'First question', 'sales');
    await customer('cust-u2', 'Second question', 'sales');
    const queue = page.getByRole('list', { name: 'Waiting conversations, VIP first' });
    const item = (name: string) => page.locator('.inbox-lists').getByRole('button', { name: new RegExp(name) });
    await expect.poll(() => item('cust-u1').getAttribute('data-unread')).toBe('true');
    await expect.poll(() => item('cust-u2').getAttribute('data-unread')).toBe('true');
    expect(await queue.getByText('New', { exact: true }).count()).toBe(2);

    // Lists | conversation | profile, side by side, using the window's height without scrolling the page.
    await item('cust-u1').click();
    const conversation = page.getByRole('region', { name: 'Conversation with cust-u1' });
    await conversation.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('region', { name: 'Customer profile' }).getByText('cust-u1').first().waitFor();
    const boxes = await page.evaluate(() =>
      ['.inbox-lists', '.inbox-main', '.inbox-profile', '.inbox'].map((s) => {
        const r = document.querySelector(s)!.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      }),
    );
    const [lists, main, profile, inbox] = boxes as [DOMRect, DOMRect, DOMRect, DOMRect];
    expect(lists.right).toBeLessThanOrEqual(main.left);
    expect(main.right).toBeLessThanOrEqual(profile.left);
    expect(new Set([lists.top, main.top, profile.top]).size).toBe(1);
    const size = await page.evaluate(() => ({ h: window.innerHeight, scrollH: document.scrollingElement!.scrollHeight }));
    expect(inbox.bottom).toBeLessThanOrEqual(size.h);
    expect(inbox.bottom).toBeGreaterThan(size.h - 40);
    expect(size.scrollH).toBeLessThanOrEqual(size.h);

    // Opening clears the marker; a new customer message in a conversation not open brings it back.
    await view(page, 'Mine').click();
    await expect.poll(() => item('cust-u1').getAttribute('data-unread')).toBe(null);
    await view(page, 'Waiting').click();
    await item('cust-u2').click();
    await page.getByRole('region', { name: 'Conversation with cust-u2' }).getByText('Second question').waitFor();
    await expect.poll(() => item('cust-u2').getAttribute('data-unread')).toBe(null);
    await view(page, 'Mine').click();
    expect(await item('cust-u1').getAttribute('data-unread')).toBe(null);
    await customer('cust-u1', 'Hello? Anyone there?', 'sales');
    const mine = page.getByRole('region', { name: 'My conversations' });
    await expect.poll(() => mine.getByRole('button', { name: /cust-u1/ }).getAttribute('data-unread')).toBe('true');
    expect(await mine.getByRole('button', { name: /cust-u1/ }).textContent()).toContain('Hello? Anyone there?');
    await screenshot(page, 'workspace-inbox');

    // The marks are kept in the browser: a reload shows the same.
    await page.reload();
    await expect.poll(() => item('cust-u2').getAttribute('data-unread')).toBe(null);
    await view(page, 'Mine').click();
    await expect.poll(() => mine.getByRole('button', { name: /cust-u1/ }).getAttribute('data-unread')).toBe('true');
    await mine.getByRole('button', { name: /cust-u1/ }).click();
    await page.getByRole('region', { name: 'Conversation with cust-u1' }).getByText('Hello? Anyone there?').waitFor();
    await expect.poll(() => mine.getByRole('button', { name: /cust-u1/ }).getAttribute('data-unread')).toBe(null);
    expect(u1.conversation_id).toBeGreaterThan(0);
  });

  it('at 390 px wide the workspace is one column with no sideways scroll', async () => {
    const page = await open('agent-phone', PHONE);
    const noSidewaysScroll = () => page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth);
    await signIn(page, lily.username, 'agent-password');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');
    await view(page, 'Mine').click();
    await page.getByRole('region', { name: 'My conversations' }).getByRole('button', { name: /cust-u1/ }).waitFor();
    expect(await noSidewaysScroll()).toBe(true);
    // Lists only until a conversation is opened.
    expect(await page.locator('.inbox-main').isVisible()).toBe(false);
    await page.getByRole('banner').getByRole('group', { name: 'My status' }).waitFor();
    await screenshot(page, 'workspace-390');

    await page.getByRole('region', { name: 'My conversations' }).getByRole('button', { name: /cust-u1/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with cust-u1' });
    await conversation.getByText('Hello? Anyone there?').waitFor();
    expect(await page.locator('.inbox-lists').isVisible()).toBe(false);
    const profile = page.getByRole('region', { name: 'Customer profile' });
    await profile.getByText('cust-u1').first().waitFor();
    const [conv, prof] = await Promise.all([conversation.boundingBox(), profile.boundingBox()]);
    expect(prof!.y).toBeGreaterThanOrEqual(conv!.y + conv!.height);
    const reply = conversation.getByLabel('Reply', { exact: true });
    await reply.fill('Yes, I am here');
    await reply.press('Enter');
    await expect.poll(() => conversation.locator('.from-agent').count()).toBe(1);
    expect(await noSidewaysScroll()).toBe(true);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'workspace-390-conversation');

    await page.getByRole('button', { name: '← Back to the lists' }).click();
    await page.getByRole('region', { name: 'My conversations' }).waitFor();
    await view(page, 'Waiting').click();
    await page.getByRole('region', { name: 'Waiting queue' }).waitFor();
    expect(await noSidewaysScroll()).toBe(true);
  });
});
