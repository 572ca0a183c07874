/**
 * The agent inbox's everyday tools in a real Chromium against a real server (FakeClock, moved by
 * the test for waiting times): the views with their counts (live), search, the filters (skill
 * group, VIP, waiting time, label) and sort; labels and private notes on a conversation (never
 * pushed) and the customer's earlier conversations; canned replies managed by an admin and an
 * agent and inserted with `/` in the reply box (keyboard and click); new-conversation alerts with
 * the permission asked only on a click and the off switch remembered. Every step fails on a page
 * error, console error or failed request, and leaves screenshots at 1366×900 and 390 px in
 * artifacts/console/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../../server/test/helpers/channel.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { startReceiver, type Receiver } from '../../server/test/helpers/receiver.js';
import { fitsWidth, launchChromium, newPage, PHONE, screenshot, startServer, unlabelledControls, WIDE, type PageProblems } from './helpers/browser.js';

const MINUTE = 60_000;

describe('console inbox tools: views, filters, labels, notes, canned replies, alerts', { timeout: 240_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let clock: FakeClock;
  let pushes: Receiver;
  let tenant: { tenantId: number; adminToken: string };
  let lily: TestAgent;
  let tom: TestAgent;
  let assoc: TestAssociation;
  let dora: number;
  const opened: Array<{ problems: PageProblems; name: string }> = [];

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_TOKEN_TTL_SECONDS: String(30 * 24 * 3600), PARLEY_API_RATE_LIMIT: '100000' });
    clock = server.t.clock as FakeClock;
    pushes = await startReceiver();
    const app = server.t.app;
    const root = await login(app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(app, root, 'Tools shop');
    const sales = await createQueue(app, tenant.adminToken, tenant.tenantId, 'sales');
    const billing = await createQueue(app, tenant.adminToken, tenant.tenantId, 'billing');
    lily = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales, billing], nickname: 'Lily' });
    tom = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales], nickname: 'Tom' });
    assoc = await createAssociation(app, tenant.adminToken, tenant.tenantId, `${pushes.url}/push`);

    // Dora had a conversation before (closed), then opened another that Lily holds; Eve's is Tom's.
    const first = await customer('cust-dora', 'Dora', 'My old order never came', 'sales');
    expect((await conv(lily.token, 'POST', `/${first}/accept`)).status).toBe(200);
    expect((await conv(lily.token, 'POST', `/${first}/close`)).status).toBe(200);
    clock.advance(MINUTE);
    dora = await customer('cust-dora', 'Dora', 'Hello again, about my parcel', 'sales');
    expect((await conv(lily.token, 'POST', `/${dora}/accept`)).status).toBe(200);
    const eve = await customer('cust-eve', 'Eve', 'Can I change my address?', 'sales');
    expect((await conv(tom.token, 'POST', `/${eve}/accept`)).status).toBe(200);
    // Waiting: Amy (VIP) 25 min, Ben (billing) 15 min, Cal 5 min.
    await customer('cust-amy', 'Amy', 'Where is my kettle?', 'sales', ['vip']);
    clock.advance(10 * MINUTE);
    await customer('cust-ben', 'Ben', 'My invoice is wrong', 'billing');
    clock.advance(10 * MINUTE);
    await customer('cust-cal', 'Cal', 'Refund for the teapot', 'sales');
    clock.advance(5 * MINUTE);
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

  async function customer(from: string, nickname: string, text: string, queue: string, tags?: string[]): Promise<number> {
    const sent = await sendCustomerMessage(server.t.app, assoc, { from, text, ext: { queue_name: queue, visitor: { user_nickname: nickname, ...(tags ? { tags } : {}) } } });
    return sent.conversation_id;
  }
  function conv(token: string, method: 'GET' | 'POST', path: string) {
    return call(server.t.app, token, method, `/api/tenants/${tenant.tenantId}/conversations${path}`);
  }

  async function open(name: string, viewport: { width: number; height: number } = WIDE): Promise<Page> {
    const { page, problems } = await newPage(browser, viewport);
    opened.push({ problems, name });
    return page;
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).not.toBe(null);
  }

  async function workspace(page: Page): Promise<void> {
    if (!page.url().endsWith('/console/workspace')) await page.getByRole('link', { name: 'Workspace' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');
    await page.getByText('Live', { exact: true }).waitFor();
  }

  const tab = (page: Page, name: 'Waiting' | 'Mine' | 'Team') => page.getByRole('tab', { name: new RegExp(`^${name}`) });
  const count = async (page: Page, name: 'Waiting' | 'Mine' | 'Team') => Number((await tab(page, name).locator('.count').textContent()) ?? 'NaN');
  const names = (page: Page) => page.locator('.inbox-lists .conversation-list .conversation-name').allTextContents();
  const listed = async (page: Page) => (await names(page)).map((n) => n.replace(/^VIP/, '').replace(/New$/, ''));

  it('the views count their conversations live; search, filters and sort narrow and order the list', async () => {
    const page = await open('inbox-views');
    await signIn(page, lily.username, 'agent-password');
    await workspace(page);

    await expect.poll(() => count(page, 'Waiting')).toBe(3);
    expect(await count(page, 'Mine')).toBe(1);
    expect(await count(page, 'Team')).toBe(1);
    await expect.poll(() => listed(page)).toEqual(['Amy', 'Ben', 'Cal']);
    await screenshot(page, 'inbox-views');

    // A new customer arrives: the count moves without a reload.
    await customer('cust-fay', 'Fay', 'Do you ship to Norway?', 'sales');
    await expect.poll(() => count(page, 'Waiting')).toBe(4);
    await expect.poll(() => listed(page)).toEqual(['Amy', 'Ben', 'Cal', 'Fay']);

    // The search box searches message text; the counts follow it.
    const search = page.getByRole('searchbox', { name: 'Search messages' });
    await search.fill('KETTLE');
    await search.press('Enter');
    await expect.poll(() => listed(page)).toEqual(['Amy']);
    await expect.poll(() => count(page, 'Waiting')).toBe(1);
    expect(await count(page, 'Mine')).toBe(0);
    await search.fill('parcel');
    await expect.poll(() => count(page, 'Mine')).toBe(1);
    expect(await count(page, 'Waiting')).toBe(0);
    await search.fill('');
    await expect.poll(() => count(page, 'Waiting')).toBe(4);

    // Filters: skill group, VIP, waiting time; then sort.
    await page.getByText('Filters and sort').click();
    const filters = page.locator('.inbox-filter-fields');
    await filters.getByLabel('Skill group').selectOption({ label: 'billing' });
    await expect.poll(() => listed(page)).toEqual(['Ben']);
    await expect.poll(() => count(page, 'Waiting')).toBe(1);
    await filters.getByLabel('Skill group').selectOption({ label: 'Any' });
    await filters.getByLabel('VIP').selectOption({ label: 'VIP only' });
    await expect.poll(() => listed(page)).toEqual(['Amy']);
    await filters.getByLabel('VIP').selectOption({ label: 'Not VIP' });
    await expect.poll(() => listed(page)).toEqual(['Ben', 'Cal', 'Fay']);
    await filters.getByLabel('VIP').selectOption({ label: 'Any customer' });
    await filters.getByLabel('Waiting').selectOption({ label: '15 min or more' });
    await expect.poll(() => listed(page)).toEqual(['Amy', 'Ben']);
    await filters.getByLabel('Waiting').selectOption({ label: '30 min or more' });
    await page.getByText('Nothing matches').waitFor();
    await filters.getByLabel('Waiting').selectOption({ label: 'Any time' });
    await filters.getByLabel('Sort').selectOption({ label: 'Newest' });
    await expect.poll(() => listed(page)).toEqual(['Fay', 'Cal', 'Ben', 'Amy']);
    await filters.getByLabel('Sort').selectOption({ label: 'Longest waiting' });
    await expect.poll(() => listed(page)).toEqual(['Amy', 'Ben', 'Cal', 'Fay']);
    expect(await page.locator('summary .count').textContent()).toBe('1');
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'inbox-filters');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => listed(page)).toEqual(['Amy', 'Ben', 'Cal', 'Fay']);

    // The Team view shows who holds each; Mine shows Lily's.
    await tab(page, 'Team').click();
    await expect.poll(() => listed(page)).toEqual(['Eve']);
    expect(await page.getByRole('region', { name: 'Team conversations' }).textContent()).toContain('Agent: Tom');
    await tab(page, 'Mine').click();
    await expect.poll(() => listed(page)).toEqual(['Dora']);
    expect(await tab(page, 'Mine').getAttribute('aria-selected')).toBe('true');

    // At 390 px: the same list, filters open, nothing wider than the screen.
    const phone = await open('inbox-views-390', PHONE);
    await signIn(phone, lily.username, 'agent-password');
    await workspace(phone);
    await expect.poll(() => listed(phone)).toEqual(['Amy', 'Ben', 'Cal', 'Fay']);
    await phone.getByText('Filters and sort').click();
    await phone.locator('.inbox-filter-fields').getByLabel('Sort').waitFor();
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'inbox-views-390');
  });

  it('labels and private notes on a conversation; the label filter; the customer’s earlier conversation opens read-only', async () => {
    const page = await open('inbox-notes-labels');
    await signIn(page, lily.username, 'agent-password');
    await workspace(page);
    await tab(page, 'Mine').click();
    await page.locator('.inbox-lists').getByRole('button', { name: /Dora/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with Dora' });
    await conversation.getByText('Hello again, about my parcel').waitFor();

    // Labels: add two, remove one; the list shows them.
    const labels = page.getByRole('region', { name: 'Labels' });
    for (const label of ['refund', 'priority']) {
      await labels.getByLabel('New label').fill(label);
      await labels.getByRole('button', { name: 'Add' }).click();
      await labels.getByRole('list', { name: 'Labels of this conversation' }).getByText(label).waitFor();
    }
    await labels.getByRole('button', { name: 'Remove label priority' }).click();
    await expect.poll(() => labels.getByRole('listitem').count()).toBe(1);
    expect((await conv(lily.token, 'GET', `/${dora}`)).body.entity.labels).toEqual(['refund']);
    await expect.poll(() => page.locator('.inbox-lists .badge-label').allTextContents()).toEqual(['refund']);

    // The label filter keeps it; another label keeps nothing.
    await page.getByText('Filters and sort').click();
    const filters = page.locator('.inbox-filter-fields');
    await filters.getByLabel('Label').fill('refund');
    await expect.poll(() => listed(page)).toEqual(['Dora']);
    await filters.getByLabel('Label').fill('late');
    await page.getByText('Nothing matches').waitFor();
    await filters.getByLabel('Label').fill('');
    await expect.poll(() => listed(page)).toEqual(['Dora']);

    // Notes: marked as never sent; saved with the author; nothing is pushed.
    const notes = page.getByRole('region', { name: 'Private notes' });
    await notes.getByText('never sent to the customer').waitFor();
    const pushedBefore = pushes.requests.length;
    await notes.getByLabel('Add a private note').fill('Called the courier: parcel is in Oslo');
    await notes.getByRole('button', { name: 'Save note' }).click();
    const noteList = notes.getByRole('list', { name: 'Private notes' });
    await noteList.getByText('Called the courier: parcel is in Oslo').waitFor();
    expect(await noteList.textContent()).toContain('Lily');
    const stored = (await call(server.t.app, lily.token, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${dora}/notes`)).body.entities;
    expect(stored).toMatchObject([{ text: 'Called the courier: parcel is in Oslo', author: { nickname: 'Lily' } }]);
    expect(pushes.requests.length).toBe(pushedBefore);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'inbox-notes-labels');

    // The profile lists Dora's earlier conversation; its link opens it read-only in the history.
    const earlier = page.getByRole('region', { name: 'Customer profile' }).getByRole('region', { name: 'Earlier conversations' });
    await earlier.getByRole('link', { name: /closed/ }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Conversation history');
    const old = page.getByRole('region', { name: 'Conversation with Dora' });
    await old.getByText('My old order never came').waitFor();
    await old.getByText('its history is read-only here').waitFor();
    expect(await old.getByLabel('Reply', { exact: true }).count()).toBe(0);

    const phone = await open('inbox-notes-labels-390', PHONE);
    await signIn(phone, lily.username, 'agent-password');
    await workspace(phone);
    await tab(phone, 'Mine').click();
    await phone.locator('.inbox-lists').getByRole('button', { name: /Dora/ }).click();
    await phone.getByRole('region', { name: 'Private notes' }).getByText('Called the courier: parcel is in Oslo').waitFor();
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'inbox-notes-labels-390');
  });

  it('canned replies: an admin manages the team’s, an agent their own, and `/` inserts one in the reply box', async () => {
    const admin = await open('canned-admin');
    await signIn(admin, 'toolsshop-admin@example.com', 'tenant-admin-pw');
    await admin.getByRole('link', { name: 'Canned replies' }).click();
    await expect.poll(() => admin.getByRole('heading', { level: 1 }).textContent()).toBe('Canned replies');
    const form = admin.getByRole('form', { name: 'New canned reply' });
    await form.getByLabel('Shortcut').fill('refund');
    await form.getByLabel('Text').fill('Your refund is on its way.');
    await form.getByRole('button', { name: 'Save canned reply' }).click();
    const team = admin.getByRole('region', { name: "The team's canned replies" });
    await team.getByText('Your refund is on its way.').waitFor();
    // Edit it.
    await team.getByRole('listitem', { name: '/refund' }).getByRole('button', { name: 'Edit' }).click();
    const edit = team.getByRole('form', { name: 'Edit /refund' });
    await edit.getByLabel('Text').fill('Your refund arrives within 3 working days.');
    await edit.getByRole('button', { name: 'Save' }).click();
    await team.getByText('Your refund arrives within 3 working days.').waitFor();
    // A personal one, then deleted after the confirmation.
    await form.getByLabel('Shortcut').fill('bye');
    await form.getByLabel('Offered to').selectOption({ label: 'Only me' });
    await form.getByLabel('Text').fill('Goodbye!');
    await form.getByRole('button', { name: 'Save canned reply' }).click();
    const own = admin.getByRole('region', { name: 'My own canned replies' });
    await own.getByText('Goodbye!').waitFor();
    await own.getByRole('listitem', { name: '/bye' }).getByRole('button', { name: 'Delete' }).click();
    await own.getByRole('alertdialog', { name: 'Delete /bye' }).getByRole('button', { name: 'Delete it' }).click();
    await own.getByText('None yet').waitFor();
    // A taken shortcut is refused with the API's words.
    await form.getByLabel('Shortcut').fill('refund');
    await form.getByLabel('Text').fill('Again');
    const problems = opened.find((o) => o.name === 'canned-admin')!.problems;
    problems.expectHttpError(409, `/api/tenants/${tenant.tenantId}/canned-replies`);
    await form.getByRole('button', { name: 'Save canned reply' }).click();
    await admin.getByRole('alert').filter({ hasText: 'The canned reply was not saved' }).waitFor();
    expect(await unlabelledControls(admin)).toEqual([]);
    expect(await fitsWidth(admin)).toBe(true);
    await screenshot(admin, 'canned-replies-admin');

    // The agent sees the team's (not editable) and keeps their own.
    const page = await open('canned-agent');
    await signIn(page, lily.username, 'agent-password');
    await page.getByRole('link', { name: 'Canned replies' }).click();
    const agentTeam = page.getByRole('region', { name: "The team's canned replies" });
    await agentTeam.getByText('Your refund arrives within 3 working days.').waitFor();
    expect(await agentTeam.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    const agentForm = page.getByRole('form', { name: 'New canned reply' });
    await agentForm.getByLabel('Shortcut').fill('thanks');
    await agentForm.getByLabel('Text').fill('Thank you for waiting!');
    await agentForm.getByRole('button', { name: 'Save canned reply' }).click();
    await page.getByRole('region', { name: 'My own canned replies' }).getByText('Thank you for waiting!').waitFor();

    // In the reply box: `/` lists both; typing narrows (shortcut, then text); Enter inserts; Enter again sends.
    await workspace(page);
    await tab(page, 'Mine').click();
    await page.locator('.inbox-lists').getByRole('button', { name: /Dora/ }).click();
    const conversation = page.getByRole('region', { name: 'Conversation with Dora' });
    const reply = conversation.getByLabel('Reply', { exact: true });
    await reply.click();
    await reply.pressSequentially('/');
    const menu = conversation.getByRole('listbox', { name: 'Canned replies' });
    await expect.poll(() => menu.getByRole('option').allTextContents()).toEqual(['/refund Your refund arrives within 3 working days.', '/thanks Thank you for waiting!']);
    expect(await reply.getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'canned-reply-menu');
    await reply.pressSequentially('tha');
    await expect.poll(() => menu.getByRole('option').allTextContents()).toEqual(['/thanks Thank you for waiting!']);
    await reply.press('Enter');
    await expect.poll(() => reply.inputValue()).toBe('Thank you for waiting!');
    expect(await reply.getAttribute('aria-expanded')).toBe('false');
    const before = pushes.requests.length;
    await reply.press('Enter');
    const pushed = await pushes.waitFor(before + 1);
    expect(JSON.parse(pushed[before]!.body)).toMatchObject({ to: 'cust-dora', bodies: [{ type: 'txt', msg: 'Thank you for waiting!' }] });

    // Mid-sentence, arrows and a click; Escape closes the list and leaves the text.
    await reply.pressSequentially('Hi Dora, /');
    await reply.press('ArrowDown');
    expect(await menu.getByRole('option', { selected: true }).textContent()).toContain('/thanks');
    await menu.getByRole('option', { name: /\/refund/ }).click();
    await expect.poll(() => reply.inputValue()).toBe('Hi Dora, Your refund arrives within 3 working days.');
    await reply.pressSequentially(' /re');
    await menu.getByRole('option').first().waitFor();
    await reply.press('Escape');
    expect(await reply.getAttribute('aria-expanded')).toBe('false');
    expect(await reply.inputValue()).toBe('Hi Dora, Your refund arrives within 3 working days. /re');

    const phone = await open('canned-390', PHONE);
    await signIn(phone, lily.username, 'agent-password');
    await phone.getByRole('link', { name: 'Canned replies' }).click();
    await phone.getByRole('region', { name: 'My own canned replies' }).getByText('Thank you for waiting!').waitFor();
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, 'canned-replies-390');
  });

  it('alerts for a new waiting conversation: permission asked on a click only, the off switch remembered', async () => {
    const page = await open('alerts');
    // The browser's Notification and audio, recorded: what the page asked for and showed.
    await page.addInitScript(() => {
      const w = window as unknown as { asked: number; shown: string[]; tones: number };
      w.asked = 0;
      w.shown = [];
      w.tones = 0;
      let permission: NotificationPermission = 'default';
      class RecordedNotification {
        static get permission() {
          return permission;
        }
        static requestPermission() {
          w.asked++;
          permission = 'granted';
          return Promise.resolve(permission);
        }
        constructor(title: string) {
          w.shown.push(title);
        }
      }
      Object.defineProperty(window, 'Notification', { value: RecordedNotification, configurable: true });
      const start = OscillatorNode.prototype.start;
      OscillatorNode.prototype.start = function (this: OscillatorNode, ...args: Parameters<OscillatorNode['start']>) {
        w.tones++;
        return start.apply(this, args);
      };
    });
    const state = () =>
      page.evaluate(() => {
        const w = window as unknown as { asked: number; shown: string[]; tones: number };
        return { asked: w.asked, shown: w.shown.length, tones: w.tones };
      });
    await signIn(page, lily.username, 'agent-password');
    await workspace(page);
    const alerts = page.getByLabel('Alert me about new conversations');
    expect(await alerts.isChecked()).toBe(true);
    expect((await state()).asked).toBe(0);
    await page.getByRole('button', { name: 'Allow browser notifications' }).click();
    await page.getByText('Sound and browser notifications on.').waitFor();
    expect((await state()).asked).toBe(1);

    await customer('cust-gus', 'Gus', 'Is the shop open on Sunday?', 'sales');
    await expect.poll(async () => (await state()).shown, { timeout: 15_000 }).toBe(1);
    expect((await state()).tones).toBeGreaterThan(0);
    await screenshot(page, 'inbox-alerts');

    // Off, remembered across a reload: the next conversation makes no alert.
    await alerts.uncheck();
    await page.reload();
    await workspace(page);
    expect(await page.getByLabel('Alert me about new conversations').isChecked()).toBe(false);
    await customer('cust-hal', 'Hal', 'Hello?', 'sales');
    await page.locator('.inbox-lists').getByRole('button', { name: /Hal/ }).waitFor();
    const after = await state();
    expect(after.shown).toBe(0);
    expect(after.tones).toBe(0);
    expect(after.asked).toBe(0);
  });
});
