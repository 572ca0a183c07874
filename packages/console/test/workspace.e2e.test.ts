/**
 * The console's working pages in a real Chromium against a real server, with real HTTP
 * receivers on 127.0.0.1: a tenant admin creates a REST association; customer messages sent with
 * the SDK reach the agent's queue live (VIP first); the agent accepts, sees the cards and the
 * profile, replies with text and an uploaded image, and sees both delivered; a failing receiver
 * shows a reply failed and the admin's re-deliver succeeds once it recovers; an IM callback rule
 * banned by 90 failures shows its countdown; a stored key is re-sent from the exception store.
 * The server runs on a FakeClock, moved by the test for the retry schedule. Every step fails on a
 * page error, console error or failed request, and leaves a screenshot in artifacts/console/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelClient } from '../../sdk/src/index.js';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createQueue, type TestAgent } from '../../server/test/helpers/channel.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, launchChromium, newPage, screenshot, startServer, unlabelledControls, type PageProblems } from './helpers/browser.js';

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const HOUR = 3600_000;

describe('console workspace and administration in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let clock: FakeClock;
  let pushes: Receiver;
  let callbacks: Receiver;
  let tenant: { tenantId: number; adminToken: string };
  let agent: TestAgent;
  let adminPage: Page;
  let agentPage: Page;
  let sdk: ChannelClient;
  let channelId: number;
  const opened: Array<{ problems: PageProblems; name: string }> = [];

  beforeAll(async () => {
    browser = await launchChromium();
    // Tokens must outlive the days of fake time the retry schedule moves through.
    server = await startServer({ PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600), PARLEY_IM_RATE_LIMIT: '100000', PARLEY_API_RATE_LIMIT: '100000' });
    clock = server.t.clock as FakeClock;
    pushes = await startReceiver();
    callbacks = await startReceiver();
    const app = server.t.app;
    const root = await login(app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(app, root, 'Shop');
    const queueId = await createQueue(app, tenant.adminToken, tenant.tenantId, '售后');
    agent = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 5, nickname: 'Lily' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
    await pushes?.close();
    await callbacks?.close();
  });

  afterEach(async () => {
    const all = opened.flatMap(({ problems, name }) => problems.list().map((p) => `[${name}] ${p}`));
    expect(all).toEqual([]);
  });

  async function open(name: string): Promise<{ page: Page; problems: PageProblems }> {
    const { page, problems } = await newPage(browser);
    opened.push({ problems, name });
    return { page, problems };
  }

  async function signIn(page: Page, username: string, password: string, path = '/'): Promise<void> {
    await page.goto(`${server.baseUrl}/console${path === '/' ? '' : path}`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Moves the server's clock and lets every due job run. */
  async function advance(ms: number): Promise<void> {
    clock.advance(ms);
    server.t.app.parley.jobs.notifyAll();
    await server.t.app.parley.jobs.idle();
  }

  async function uploadImage(token: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([PNG_1X1], { type: 'image/png' }), 'item.png');
    const res = await fetch(`${server.baseUrl}/api/tenants/${tenant.tenantId}/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(200);
    return ((await res.json()) as { entity: { url: string } }).entity.url;
  }

  it('tenant admin creates a REST association and sees its Client ID, secret, try-it panel and empty delivery log', async () => {
    ({ page: adminPage } = await open('tenant-admin'));
    await signIn(adminPage, 'shop-admin@example.com', 'tenant-admin-pw', '/rest-channels');
    await expect.poll(() => adminPage.getByRole('heading', { level: 1 }).textContent()).toBe('REST associations');
    await adminPage.getByText('No associations yet').waitFor();

    await adminPage.getByLabel('Association name').fill('WeChat bridge');
    await adminPage.getByLabel('Callback address', { exact: true }).fill(`${pushes.url}/push`);
    await adminPage.getByLabel('Default skill group', { exact: true }).selectOption({ label: '售后' });
    await adminPage.getByRole('button', { name: 'Create association' }).click();
    const created = adminPage.getByRole('status').filter({ hasText: 'Association WeChat bridge created' });
    await created.waitFor();

    const [association] = (await call(server.t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels`)).body.entities as Array<{
      channelId: number;
      clientId: string;
      clientSecret: string;
      postMessageUrl: string;
    }>;
    channelId = association!.channelId;
    expect(await created.textContent()).toContain(association!.clientId);
    const detail = adminPage.getByRole('region', { name: /Association “WeChat bridge”/ });
    await detail.getByText(association!.clientId).first().waitFor();
    // The secret is hidden until revealed.
    expect(await detail.textContent()).not.toContain(association!.clientSecret);
    await detail.getByRole('button', { name: 'Reveal' }).click();
    await detail.getByText(association!.clientSecret).waitFor();
    await detail.getByText(`${server.baseUrl}${association!.postMessageUrl}`).waitFor();

    // Try it: the string to sign names the path; the curl command carries the signed headers.
    const stringToSign = adminPage.getByTestId('try-string-to-sign');
    await stringToSign.waitFor();
    expect(await stringToSign.textContent()).toMatch(new RegExp(`^POST\\n${association!.postMessageUrl}\\n\\d+\\n[0-9a-f]{32}$`));
    expect(await adminPage.getByTestId('try-curl').textContent()).toContain(`Authorization: hmac ${association!.clientId}:`);
    await adminPage.getByText('No replies pushed yet').waitFor();
    expect(await unlabelledControls(adminPage)).toEqual([]);
    expect(await fitsWidth(adminPage)).toBe(true);
    await screenshot(adminPage, '10-rest-association');

    sdk = new ChannelClient({ baseUrl: server.baseUrl, tenantId: tenant.tenantId, channelId, clientId: association!.clientId, clientSecret: association!.clientSecret, signatureTtlMs: 0 });
  });

  it('customer messages sent with the SDK appear in the agent queue without a reload, VIP first', async () => {
    ({ page: agentPage } = await open('agent'));
    await signIn(agentPage, agent.username, 'agent-password');
    await expect.poll(() => agentPage.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');
    await agentPage.getByText('Nobody is waiting').waitFor();
    await agentPage.getByText('Live', { exact: true }).waitFor();
    // A marker that a reload would wipe.
    await agentPage.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    await sdk.sendMessage({ from: 'cust-plain', bodies: [{ type: 'txt', msg: 'Where is my parcel?' }], ext: { queue_name: '售后', visitor: { user_nickname: 'Plain Pete' } } });
    const queue = agentPage.getByRole('list', { name: 'Waiting conversations, VIP first' });
    await queue.getByText('Plain Pete').waitFor();

    const cardImage = await uploadImage(tenant.adminToken);
    await sdk.sendMessage({
      from: 'cust-vip',
      bodies: [{ type: 'txt', msg: '我想查询订单' }],
      ext: {
        queue_name: '售后',
        visitor: { user_nickname: '小王', true_name: 'Wang Xiao', qq: '10001', email: 'wang@example.com', phone: '+86 138 0000 0000', company_name: 'Acme', description: 'Frequent buyer', tags: ['vip', 'north'] },
        msgtype: {
          order: { title: 'Order #8812', order_title: 'Blue kettle', price: '¥199.00', desc: '1.7 L, steel', img_url: cardImage, item_url: 'https://shop.example.com/orders/8812' },
          track: { title: 'Red teapot', price: '¥89.00', desc: 'Viewed just now', img_url: cardImage, item_url: 'https://shop.example.com/items/42' },
        },
      },
    });
    await queue.getByText('小王').waitFor();
    const items = await queue.getByRole('listitem').allTextContents();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/^VIP小王/);
    expect(items[0]).toContain('Waiting');
    expect(items[1]).toContain('Plain Pete');
    expect(await agentPage.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    await screenshot(agentPage, '11-agent-queue');
  });

  it('the agent accepts, sees the cards and the profile column, replies with text and an uploaded image, and both are delivered', async () => {
    await agentPage.getByRole('list', { name: 'Waiting conversations, VIP first' }).getByRole('button', { name: /小王/ }).click();
    const conversation = agentPage.getByRole('region', { name: 'Conversation with 小王' });
    await conversation.getByRole('button', { name: 'Accept' }).click();
    await conversation.getByText('In progress').waitFor();
    await agentPage.getByRole('tab', { name: /^Mine/ }).click();
    await agentPage.getByRole('region', { name: 'My conversations' }).getByText('小王').waitFor();

    const order = conversation.getByRole('article', { name: 'Order card: Order #8812' });
    await order.waitFor();
    expect(await order.textContent()).toContain('¥199.00');
    expect(await order.getByRole('link').getAttribute('href')).toBe('https://shop.example.com/orders/8812');
    await expect.poll(() => order.getByRole('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    const track = conversation.getByRole('article', { name: 'Track card: Red teapot' });
    expect(await track.textContent()).toContain('¥89.00');
    expect(await track.getByRole('link').getAttribute('href')).toBe('https://shop.example.com/items/42');

    // The customer profile is the inbox's third column, beside the conversation.
    const profileColumn = agentPage.getByRole('region', { name: 'Customer profile' });
    await profileColumn.getByText('Wang Xiao').waitFor();
    const profile = await profileColumn.textContent();
    for (const value of ['cust-vip', '小王', 'Wang Xiao', '10001', 'wang@example.com', '+86 138 0000 0000', 'Acme', 'Frequent buyer', 'vip', 'north']) expect(profile).toContain(value);
    await screenshot(agentPage, '12-profile');

    const reply = conversation.getByLabel('Reply', { exact: true });
    await reply.fill('您好，马上为您查询');
    await reply.press('Enter');
    await expect.poll(() => reply.inputValue()).toBe('');
    await conversation.getByLabel('Attach image').setInputFiles({ name: 'answer.png', mimeType: 'image/png', buffer: PNG_1X1 });

    const received = await pushes.waitFor(2);
    const bodies = received.map((r) => (JSON.parse(r.body) as { bodies: Array<{ type: string; msg?: string; url?: string; filename?: string }>; to: string }));
    expect(bodies[0]!.bodies).toEqual([{ type: 'txt', msg: '您好，马上为您查询' }]);
    expect(bodies[1]!.bodies[0]).toMatchObject({ type: 'img', filename: 'answer.png' });
    expect(bodies.every((b) => b.to === 'cust-vip')).toBe(true);
    const image = await fetch(bodies[1]!.bodies[0]!.url!);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG_1X1);

    const agentBubbles = conversation.locator('.from-agent');
    await expect.poll(() => agentBubbles.locator('[data-delivery-status="succeeded"]').count()).toBe(2);
    expect(await agentBubbles.first().textContent()).toContain('Delivered');
    expect(await unlabelledControls(agentPage)).toEqual([]);
    expect(await fitsWidth(agentPage)).toBe(true);
    await screenshot(agentPage, '13-replies-delivered');

    // An "image" whose bytes are HTML goes out as a file, and its URL only ever downloads it.
    await conversation.getByLabel('Attach image').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<!doctype html><script>alert(1)</script>') });
    const third = (JSON.parse((await pushes.waitFor(3))[2]!.body) as { bodies: Array<{ type: string; url: string; filename: string }> }).bodies[0]!;
    expect(third).toMatchObject({ type: 'file', filename: 'fake.png' });
    const download = await fetch(third.url);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    await expect.poll(() => agentBubbles.locator('[data-delivery-status="succeeded"]').count()).toBe(3);
  });

  it('an IM callback rule banned by failures shows its countdown; a stored key is re-sent from the exception store', async () => {
    const { page } = await open('system-admin');
    await signIn(page, ADMIN.username, ADMIN.password, '/im-apps');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('IM apps');
    await page.getByLabel('Org name').fill('acme');
    await page.getByLabel('App name').fill('shop');
    await page.getByRole('button', { name: 'Create IM app' }).click();
    await page.getByRole('status').filter({ hasText: 'App acme#shop created' }).waitFor();
    const secret = (await page.locator('.kv').filter({ hasText: 'Client secret' }).locator('code').textContent())!;
    const clientId = (await page.locator('.kv').filter({ hasText: 'Client ID' }).locator('code').textContent())!;
    await screenshot(page, '17-im-app-created');
    await page.getByRole('button', { name: 'Manage this app now' }).click();
    await page.locator('.app-bar').getByText('acme#shop', { exact: true }).waitFor();

    // Users and a group of the app, made in the console.
    await page.getByRole('link', { name: 'IM users and groups' }).click();
    const register = page.getByRole('form', { name: 'Register a user' });
    for (const username of ['alice', 'bob']) {
      await register.getByLabel('Username').fill(username);
      await register.getByLabel('Password').fill('pw-123456');
      await register.getByRole('button', { name: 'Register user' }).click();
      await page.getByRole('status').filter({ hasText: `User ${username} registered` }).waitFor();
    }
    const newGroup = page.getByRole('form', { name: 'Create a group' });
    await newGroup.getByLabel('Group name').fill('Team');
    await newGroup.getByLabel('Owner').fill('alice');
    await newGroup.getByLabel('Members').fill('bob');
    await newGroup.getByRole('button', { name: 'Create group' }).click();
    const group = page.getByRole('region', { name: 'Group Team' });
    await group.getByRole('button', { name: 'Remove bob' }).waitFor();
    expect(await group.textContent()).toContain('owner alice · 2 of 200 members');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, '17b-im-users-groups');

    await page.getByRole('link', { name: 'Callback rules' }).click();
    await page.getByLabel('Callback service on').click();
    await expect.poll(() => page.getByLabel('Callback service on').isChecked()).toBe(true);
    await page.getByLabel('Store failed callbacks (exception store)').click();
    await expect.poll(() => page.getByLabel('Store failed callbacks (exception store)').isChecked()).toBe(true);
    await page.getByLabel('Rule name').fill('main');
    await page.getByLabel('Callback URL').fill(`${callbacks.url}/im`);
    await page.getByRole('button', { name: 'Create rule' }).click();
    const rule = page.getByRole('article', { name: 'Rule main' });
    await rule.getByTestId('rule-delivery').getByText('Active', { exact: true }).waitFor();
    expect(await rule.getByTestId('rule-switch').textContent()).toContain('On');
    // Edit: a new URL, and no `custom` messages.
    await rule.getByRole('button', { name: 'Edit main' }).click();
    await rule.getByLabel('URL of main').fill(`${callbacks.url}/im2`);
    await rule.getByRole('group', { name: 'Message types' }).getByLabel('custom').uncheck();
    await rule.getByRole('button', { name: 'Save main' }).click();
    await rule.getByText(`${callbacks.url}/im2`).waitFor();
    expect(await rule.textContent()).toContain('messages txt, img, audio, video, file, loc, cmd ·');

    // (Before the retry schedule moves the fake clock: the countdown is read against wall time.)
    // 45 messages to an offline user (a chat and a chat_offline record each), every attempt and
    // retry failing: the 90th failure within 30 s bans the rule.
    callbacks.respond({ status: 500 });
    const app = server.t.app;
    const token = (await call(app, undefined, 'POST', '/acme/shop/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).body.access_token as string;
    for (let i = 0; i < 45; i++) {
      const sent = await call(app, token, 'POST', '/acme/shop/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: `hello ${i}` } });
      expect(sent.status).toBe(200);
    }
    await app.parley.jobs.idle();
    await app.parley.callbacks.bans.flush();
    expect(callbacks.requests.length).toBeGreaterThanOrEqual(90);
    expect((await call(app, token, 'GET', '/acme/shop/callbacks/rules')).body.entities[0]).toMatchObject({ status: 'banned', ban_count: 1, url: `${callbacks.url}/im2` });

    await rule.getByTestId('rule-delivery').getByText('Banned', { exact: true }).waitFor({ timeout: 15_000 });
    const countdown = rule.getByTestId('ban-countdown');
    await expect.poll(() => countdown.textContent()).toMatch(/^[45] min \d\d s left$/);
    expect(await rule.getByTestId('rule-delivery').textContent()).toMatch(/^Delivery:?Banned until \d\d:\d\d:\d\d · [45] min \d\d s left · ban count 1$/);
    const first = await countdown.textContent();
    await expect.poll(() => countdown.textContent(), { timeout: 5000 }).not.toBe(first);
    // The live tail shows the failed attempts with their error; the chart counts them this minute.
    const tail = page.getByRole('table', { name: 'Recent callback attempts, newest first' });
    await tail.getByRole('cell', { name: 'HTTP 500' }).first().waitFor({ timeout: 10_000 });
    const chart = page.getByTestId('per-minute-chart');
    await expect.poll(() => chart.getAttribute('aria-label')).toMatch(new RegExp(`0 delivered, 0 over-long, ${callbacks.requests.length} failed`));
    expect(await chart.locator('rect[data-kind="failure"]').count()).toBe(1);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '18-rule-banned');

    await page.getByRole('link', { name: 'Exception store' }).click();
    const firstKey = page.getByRole('row').filter({ has: page.getByRole('button', { name: /Open/ }) }).first();
    await firstKey.waitFor();
    const [keyCell, size, retries] = (await firstKey.getByRole('cell').allTextContents()).slice(0, 3) as [string, string, string];
    // The cell reads "yyyyMMddHHmm — <readable time> UTC".
    const date = keyCell.split(' ')[0] as string;
    const keyRow = page.getByRole('row').filter({ hasText: date });
    expect(Number(size)).toBeGreaterThan(0);
    expect(retries).toBe('0');
    await keyRow.getByRole('button', { name: /Open/ }).click();
    const detail = page.getByRole('region', { name: `Key ${date}` });
    await detail.getByRole('cell', { name: /500/ }).first().waitFor();
    await screenshot(page, '19-exception-store');

    callbacks.clear();
    callbacks.respond({ status: 200 });
    await detail.getByLabel('Target URL (optional)').fill(`${callbacks.url}/resend`);
    await detail.getByRole('button', { name: 'Re-send this key' }).click();
    await detail.getByRole('status').filter({ hasText: `Key ${date} queued for re-sending` }).waitFor();
    await app.parley.jobs.idle();
    // Re-sends go a page at a time at the app's re-send rate: move the server's clock through the pages.
    for (let s = 0; s < 10 && callbacks.requests.length < Number(size); s++) await advance(1_000);
    const resent = await callbacks.waitFor(Number(size));
    expect(resent.every((r) => r.path === '/resend')).toBe(true);
    await expect.poll(() => keyRow.getByRole('cell').nth(2).textContent()).toBe('1');
    await screenshot(page, '20-key-resent');
  });

  it('a failing receiver shows the reply failed; the admin re-delivers it once the receiver recovers', async () => {
    pushes.respond({ status: 503 });
    const conversation = agentPage.getByRole('region', { name: 'Conversation with 小王' });
    const reply = conversation.getByLabel('Reply', { exact: true });
    await reply.fill('Are you still there?');
    await reply.press('Enter');
    const bubble = conversation.locator('.from-agent').filter({ hasText: 'Are you still there?' });
    await bubble.locator('[data-delivery-status="pending"]').waitFor();
    await server.t.app.parley.jobs.idle();
    // The first attempt failed: the agent sees why while the retries go on.
    await bubble.getByText('Retrying; the last attempt failed: HTTP 503').waitFor();
    // The whole retry schedule (10 attempts over about a day) on the server's fake clock.
    for (let i = 0; i < 10; i++) await advance(15 * HOUR);
    await bubble.locator('[data-delivery-status="failed"]').waitFor();
    expect(await bubble.textContent()).toContain('did not accept it after every retry (last error: HTTP 503');
    await screenshot(agentPage, '14-reply-failed');

    pushes.respond({ status: 200 });
    await adminPage.getByRole('button', { name: 'Refresh' }).click();
    const row = adminPage.getByRole('row').filter({ hasText: 'Failed' });
    await row.waitFor();
    expect(await row.textContent()).toContain('HTTP 503');
    // Each attempt says its status once: the error is not repeated when it is only the status.
    const attempts = await row.locator('.attempts li').allTextContents();
    expect(attempts.length).toBeGreaterThan(1);
    for (const attempt of attempts) expect(attempt).toMatch(/^\d{1,2} \w{3} \d{4}, \d\d:\d\d · HTTP 503 · \d+ ms$/);
    await screenshot(adminPage, '15-delivery-log-failed');
    await row.getByRole('button', { name: /Re-deliver/ }).click();
    await adminPage.getByRole('status').filter({ hasText: 'queued again' }).waitFor();
    await server.t.app.parley.jobs.idle();
    await bubble.locator('[data-delivery-status="succeeded"]').waitFor();
    expect(pushes.requests.at(-1)!.body).toContain('Are you still there?');
    await adminPage.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => adminPage.getByRole('row').filter({ hasText: 'Failed' }).count()).toBe(0);
    await screenshot(adminPage, '16-delivery-log-redelivered');
  });
});
