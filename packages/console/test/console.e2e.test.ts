/**
 * The console in a real browser against a real server: a system admin creates a tenant, its
 * admin builds a skill group and an agent, the agent switches status. Every step fails on a page
 * error, a console error or a failed request, and leaves a screenshot in artifacts/console/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../server/test/helpers/app.js';
import { ADMIN } from '../../server/test/helpers/app.js';
import { fitsWidth, launchChromium, newPage, screenshot, startServer, unlabelledControls, type PageProblems } from './helpers/browser.js';

const TENANT = { name: 'Acme Support', admin: 'acme-admin', nickname: 'Acme Admin', password: 'acme-admin-pw' };
const AGENT = { email: 'alice@acme.example', nickname: 'Alice', password: 'alice-password' };

describe('web console in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  const opened: Array<{ context: BrowserContext; problems: PageProblems; name: string }> = [];

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
  });

  afterEach(async () => {
    // Problems are checked after each test so a failing step still shows what the browser said.
    const all = opened.splice(0).flatMap(({ problems, name }) => problems.list().map((p) => `[${name}] ${p}`));
    expect(all).toEqual([]);
  });

  async function open(name: string): Promise<{ page: Page; problems: PageProblems }> {
    const { context, page, problems } = await newPage(browser);
    opened.push({ context, problems, name });
    return { page, problems };
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${server.baseUrl}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('system admin signs in with the keyboard, creates a tenant, keeps the session across a reload and signs out', async () => {
    const { page } = await open('system-admin');
    await page.goto(`${server.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/console');
    await screenshot(page, '01-sign-in');
    // The username field has focus on arrival; the whole form works from the keyboard.
    await page.keyboard.type(ADMIN.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Tenants');
    expect(new URL(page.url()).pathname).toBe('/console/tenants');
    // The token is in an HttpOnly cookie the browser holds; no script on the page can read it.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'parley_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const token = cookie!.value;
    expect(token.length).toBeGreaterThan(20);
    const readable = await page.evaluate(() => {
      const dump = (storage: Storage) => Object.keys(storage).map((key) => `${key}=${storage.getItem(key)}`).join('\n');
      return { local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie };
    });
    expect(readable.local).not.toContain(token);
    expect(readable.session).not.toContain(token);
    expect(readable.cookie).not.toContain(token);
    expect(readable.cookie).not.toContain('parley_session');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).evaluate((h) => h === document.activeElement)).toBe(true);

    await page.getByLabel('Tenant name').fill(TENANT.name);
    await page.getByLabel('Edition').selectOption('flagship');
    await page.getByLabel('Administrator username').fill(TENANT.admin);
    await page.getByLabel('Administrator nickname').fill(TENANT.nickname);
    await page.getByLabel('Administrator password').fill(TENANT.password);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('status').filter({ hasText: `Tenant ${TENANT.name} created` }).waitFor();
    const row = page.getByRole('row').filter({ hasText: TENANT.name });
    await row.waitFor();
    expect(await row.textContent()).toContain('flagship');
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '02-tenants');

    // The tenant really exists on the server.
    const tenants = (await server.t.app.parley.accounts.listTenants()).map((t) => t.name);
    expect(tenants).toContain(TENANT.name);

    // An IM page without an open app lists the apps to open; a deep link survives a reload.
    await page.getByRole('link', { name: /Callback rules/ }).click();
    await page.getByRole('heading', { name: 'Open an IM app' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/callback-rules');

    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Callback rules');
    await page.getByRole('link', { name: 'Tenants' }).click();
    await page.getByRole('row').filter({ hasText: TENANT.name }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    // Signing out revoked the token on the server and cleared the cookie.
    await expect.poll(async () => (await page.context().cookies()).some((c) => c.name === 'parley_session')).toBe(false);
    expect(await server.t.app.parley.accounts.authenticate(token)).toBeUndefined();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
  });

  it('tenant admin creates a skill group, an agent in it, and VIP tags; a rejected form shows the API error', async () => {
    const { page, problems } = await open('tenant-admin');
    await signIn(page, TENANT.admin, TENANT.password);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Skill groups');

    await page.getByLabel('Skill group name').fill('Pre-sales');
    await page.getByRole('button', { name: 'Create skill group' }).click();
    await page.getByRole('status').filter({ hasText: 'Skill group Pre-sales created' }).waitFor();
    await page.getByRole('cell', { name: 'Pre-sales', exact: true }).waitFor();

    // The same name again: the server answers 409 and the page shows its description.
    const tenantId = (await server.t.app.parley.accounts.listTenants()).find((t) => t.name === TENANT.name)?.tenantId;
    problems.expectHttpError(409, `/api/tenants/${tenantId}/skill-groups`);
    await page.getByLabel('Skill group name').fill('Pre-sales');
    await page.getByRole('button', { name: 'Create skill group' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/already exists/);
    expect(await alert.textContent()).toContain('conflict');
    await screenshot(page, '03-skill-group-conflict');

    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByLabel('Login e-mail').fill(AGENT.email);
    await page.getByLabel('Nickname').fill(AGENT.nickname);
    await page.getByLabel('Password').fill(AGENT.password);
    await page.getByLabel('Capacity (concurrent conversations)').fill('3');
    await page.getByRole('checkbox', { name: 'Pre-sales' }).check();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('status').filter({ hasText: `Agent ${AGENT.nickname}` }).waitFor();
    const agentRow = page.getByRole('row').filter({ hasText: AGENT.email });
    await agentRow.waitFor();
    const cells = await agentRow.getByRole('cell').allTextContents();
    expect(cells).toEqual([AGENT.nickname, AGENT.email, 'Agent', 'Pre-sales', '3', 'Offline']);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '04-agents');

    await page.getByRole('link', { name: 'VIP tags' }).click();
    const tags = page.getByRole('textbox', { name: 'VIP tags' });
    await expect.poll(() => tags.inputValue()).toBe('vip');
    await tags.fill('vip, gold platinum');
    await page.getByRole('button', { name: 'Save VIP tags' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await server.t.app.parley.accounts.getTenant(tenantId ?? 0)).vipTags).toEqual(['vip', 'gold', 'platinum']);
    await screenshot(page, '05-vip-tags');

    // A deep link opens its page directly after a reload.
    await page.goto(`${server.baseUrl}/console/agents`);
    await page.getByRole('row').filter({ hasText: AGENT.email }).waitFor();
  });

  it('agent signs in on a deep link, switches status, and the admin sees it', async () => {
    const { page } = await open('agent');
    // Signed out, a deep link shows the sign-in form and then the page the link named.
    await page.goto(`${server.baseUrl}/console/workspace`);
    await page.getByLabel('Username').fill(AGENT.email);
    await page.getByLabel('Password').fill(AGENT.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Workspace');
    expect(new URL(page.url()).pathname).toBe('/console/workspace');

    const offline = page.getByRole('button', { name: 'Offline' });
    await expect.poll(() => offline.getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Online' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Online' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByText('New conversations are assigned to you.').waitFor();
    await page.getByRole('button', { name: 'Busy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Busy' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByText('Nobody is waiting').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '06-agent-workspace');

    // An agent does not get the admin pages.
    await page.goto(`${server.baseUrl}/console/agents`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Not available');

    const { page: adminPage } = await open('tenant-admin-2');
    await signIn(adminPage, TENANT.admin, TENANT.password);
    await adminPage.getByRole('link', { name: 'Agents' }).click();
    const row = adminPage.getByRole('row').filter({ hasText: AGENT.email });
    await expect.poll(async () => (await row.getByRole('cell').allTextContents()).at(-1)).toBe('Busy');
  });

  it('ends the session and explains why when the token is rejected', async () => {
    const { page, problems } = await open('expired');
    await signIn(page, TENANT.admin, TENANT.password);
    await page.getByRole('heading', { name: 'Skill groups', exact: true }).waitFor();
    // Replace the session cookie with a token the server does not know, as after a revocation.
    await page.context().addCookies([{ name: 'parley_session', value: 'revoked-token', url: server.baseUrl, httpOnly: true, sameSite: 'Strict' }]);
    const tenantId = (await server.t.app.parley.accounts.listTenants()).find((t) => t.name === TENANT.name)?.tenantId;
    problems.expectHttpError(401, `/api/tenants/${tenantId}/skill-groups`);
    problems.expectHttpError(401, `/api/tenants/${tenantId}`);
    // The header's agent status (a tenant admin is also an agent) reads the agent list.
    problems.expectHttpError(401, `/api/tenants/${tenantId}/agents`);
    await page.reload();
    await page.getByText(/Your session has ended: Missing or invalid bearer token/).waitFor();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('parley.console.session'))).toBeNull();
  });

  it('ends the session when the token lifetime runs out, and signing out in one tab signs out the others', async () => {
    const { page } = await open('expiry');
    // The browser's clock is under the test's control: the 24 h token lifetime passes in an instant.
    await page.clock.install();
    await signIn(page, TENANT.admin, TENANT.password);
    await page.getByRole('heading', { name: 'Skill groups', exact: true }).waitFor();
    await page.clock.fastForward(server.t.app.parley.config.tokenTtlSeconds * 1000 - 60_000);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await page.clock.fastForward(61_000);
    await page.getByText('Your session expired. Sign in again.').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('parley.console.session'))).toBeNull();

    await signIn(page, TENANT.admin, TENANT.password);
    await page.getByRole('heading', { name: 'Skill groups', exact: true }).waitFor();
    const second = await page.context().newPage();
    await second.goto(`${server.baseUrl}/console/agents`);
    await second.getByRole('heading', { name: 'Agents', exact: true }).waitFor();
    await second.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out in another tab.').waitFor();
  });

  it('the watcher behind these tests does report page errors, console errors and unexpected API errors', async () => {
    // Not pushed to `opened`: the problems are provoked on purpose and checked here.
    const { context, page, problems } = await newPage(browser);
    await page.goto(`${server.baseUrl}/console`);
    await page.evaluate(() => {
      console.error('deliberate console error');
      setTimeout(() => {
        throw new Error('deliberate page error');
      }, 0);
    });
    // The page error is thrown from a timer: wait for it before navigating away, or the
    // navigation can tear the page down before the timer fires.
    await expect.poll(() => problems.list().join('\n')).toContain('page error: deliberate page error');
    await page.goto(`${server.baseUrl}/console/assets/missing-file.js`);
    await expect.poll(() => problems.list().join('\n')).toMatch(/status of 404/);
    const text = problems.list().join('\n');
    expect(text).toContain('deliberate console error');
    expect(text).toContain('page error: deliberate page error');
    await context.close();
  });

  it('the API docs at /docs render under their Content-Security-Policy without a violation', async () => {
    // A blocked script or style is a console error, which fails this test through the watcher.
    const { page } = await open('api-docs');
    const response = await page.goto(`${server.baseUrl}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.opblock').first().waitFor();
    await page.locator('.opblock').first().click();
    await page.getByRole('button', { name: 'Try it out' }).first().waitFor();
    // The UI renders the operations near the viewport (the whole list is long); the document it reads has them all.
    const spec = (await (await page.request.get(`${server.baseUrl}/docs/json`)).json()) as { paths: Record<string, object> };
    expect(Object.values(spec.paths).flatMap((ops) => Object.keys(ops)).length).toBeGreaterThan(100);
    await page.mouse.wheel(0, 100_000);
    await page.getByText('Schemas', { exact: true }).waitFor();
  });

  it('shows the API description when sign-in is refused', async () => {
    const { page, problems } = await open('wrong-password');
    problems.expectHttpError(401, '/api/login');
    await signIn(page, ADMIN.username, 'not-the-password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Wrong username or password');
    await screenshot(page, '07-sign-in-refused');
  });
});
