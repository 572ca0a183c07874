/**
 * Operator events (contract 6.7) in a real Chromium against a real server, with a real webhook
 * receiver on 127.0.0.1: on the Callback rules page the system admin sets the app's operations
 * webhook (its secret shown once, and it is the secret the events are signed with), and the app's
 * events appear as notices, newest first, with their reason and how sending them went; on the
 * REST associations page the tenant admin sees the tenant's. Both pages fit 1366×900 and 390 px
 * with the notices on them (no sideways scrolling, no overflowing text). Screenshots in
 * artifacts/console/ (`operator-events-*`).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyOperatorEvent } from '@parley/sdk';
import type { OperatorEventInput, OperatorOwner } from '../../server/src/modules/operations/ports.js';
import { ADMIN, createTenant, login, type TestApp } from '../../server/test/helpers/app.js';
import { CallbackReceiver } from '../../server/test/helpers/callback-receiver.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { createImApp } from '../../server/test/helpers/im.js';
import { fitsWidth, launchChromium, newPage, PHONE, screenshot, startServer, unlabelledControls, WIDE, type PageProblems } from './helpers/browser.js';
import { textOverflows } from './helpers/overflow.js';

const MIN = 60_000;

describe('operator events in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let ops: CallbackReceiver;
  let appId: string;
  let tenantId: number;
  const opened: Array<{ problems: PageProblems; name: string }> = [];
  const clock = () => server.t.clock as FakeClock;

  /** Raises an event through the real operations module, as its cause would. */
  async function raise(owner: OperatorOwner, event: OperatorEventInput): Promise<void> {
    await server.t.app.parley.operations.events.within((_tx, write) => write(owner, event));
    server.t.app.parley.jobs.notifyAll();
    await server.t.app.parley.jobs.idle();
  }

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_IM_RATE_LIMIT: '100000', PARLEY_API_RATE_LIMIT: '100000' });
    ops = await CallbackReceiver.start('/ops');
    const im = await createImApp(server.t.app, 'acme', 'shop');
    appId = (await server.t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    const root = await login(server.t.app, ADMIN.username, ADMIN.password);
    tenantId = (await createTenant(server.t.app, root, 'Ops Shop')).tenantId;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
    await ops?.close();
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

  async function visit(page: Page, label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: label, exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(label);
  }

  /** The system admin on the Callback rules page of acme#shop. */
  async function callbackRules(name: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await signIn(name, viewport, ADMIN.username, ADMIN.password);
    await visit(page, 'IM apps');
    await page.getByRole('table', { name: 'IM apps' }).getByRole('button', { name: 'Open acme#shop' }).click();
    await page.locator('.app-bar').getByText('acme#shop', { exact: true }).waitFor();
    await visit(page, 'Callback rules');
    return page;
  }

  async function expectFits(page: Page, shot: string): Promise<void> {
    await expect.poll(() => page.getByText(/^Loading .*…$/).count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    expect(await textOverflows(page)).toEqual([]);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, shot);
  }

  it("sets the app's webhook with its secret shown once, and lists the app's events newest first with their reason", async () => {
    const page = await callbackRules('callback-rules-1366', WIDE);
    const panel = page.getByRole('region', { name: 'Operator events' });
    await panel.getByText('No operations webhook is set').waitFor();
    await panel.getByText('No operator events yet').waitFor();

    await panel.getByLabel('Webhook URL').fill(ops.url);
    await panel.getByRole('button', { name: 'Save webhook' }).click();
    await panel.getByText('Copy its secret now: it is not shown again.').waitFor();
    const secret = (await panel.locator('code[title]').filter({ hasText: /^[0-9a-f]{32}$/ }).first().textContent()) ?? '';
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    await panel.getByRole('button', { name: 'Replace webhook' }).waitFor();

    const bannedAt = clock().now();
    await raise(
      { scope: 'app', id: appId },
      {
        type: 'rule.banned',
        data: { rule: 'main', reason: 'failures', ban_count: 2, banned_until: bannedAt + 10 * MIN, last_errors: [{ at: bannedAt, error: 'HTTP 500' }, { at: bannedAt - 5, error: 'HTTP 500' }, { at: bannedAt - 9, error: 'connection: refused (127.0.0.1:9)' }] },
      },
    );
    clock().advance(10 * MIN);
    await raise({ scope: 'app', id: appId }, { type: 'rule.unbanned', data: { rule: 'main', ban_count: 2 } });
    clock().advance(MIN);
    await raise({ scope: 'app', id: appId }, { type: 'store.expiring', data: { date: '202611211200', size: 12, expires_at: clock().now() + 24 * 60 * MIN } });

    // The page polls: the notices appear without a reload, newest first.
    const notices = panel.getByRole('list', { name: 'Operator events, newest first' }).getByRole('listitem');
    await expect.poll(() => notices.count(), { timeout: 15_000 }).toBe(3);
    expect(await notices.evaluateAll((items) => items.map((i) => i.getAttribute('data-event')))).toEqual(['store.expiring', 'rule.unbanned', 'rule.banned']);
    const banned = await notices.nth(2).textContent();
    expect(banned).toContain('Rule main banned until');
    expect(banned).toContain('(ban 2)');
    expect(banned).toContain('Reason: 90 failed attempts within 30 s. Last errors: HTTP 500 (2×), connection: refused (127.0.0.1:9).');
    expect(banned).toContain('Sent to the webhook');
    expect(await notices.nth(1).textContent()).toContain('Rule main is delivering again');
    expect(await notices.nth(0).textContent()).toContain('Exception-store key 202611211200 expires soon');
    expect(await notices.nth(0).textContent()).toContain('its 12 records are deleted from');

    // The secret the page showed is the one the receiver's events verify with.
    expect(ops.requests).toHaveLength(3);
    const nowSeconds = Math.floor(clock().now() / 1000);
    const types = ops.requests.map((r) => verifyOperatorEvent({ secret, headers: r.headers as Record<string, string>, body: r.body, nowSeconds, toleranceSeconds: 3600 }).event.type);
    expect(types).toEqual(['rule.banned', 'rule.unbanned', 'store.expiring']);
    await expectFits(page, 'operator-events-callback-rules-1366');

    // Shown once: after a reload the secret is nowhere on the page, the URL is.
    await page.reload();
    await panel.getByRole('button', { name: 'Replace webhook' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await panel.textContent()).toContain(ops.url);

    const phone = await callbackRules('callback-rules-390', PHONE);
    await phone.getByRole('list', { name: 'Operator events, newest first' }).getByRole('listitem').nth(2).waitFor();
    await expectFits(phone, 'operator-events-callback-rules-390');
  });

  it("lists the tenant's events on the REST associations page", async () => {
    await raise({ scope: 'tenant', id: String(tenantId) }, { type: 'delivery.exhausted', data: { channel_id: 7, delivery_id: 'dlv_0c1e5f2a9b7d4e3f8a6b5c4d3e2f1a0b', msg_id: '1764201600000-42', last_error: 'HTTP 503' } });
    for (const [viewport, size] of [['1366', WIDE], ['390', PHONE]] as const) {
      const page = await signIn(`rest-associations-${viewport}`, size, 'opsshop-admin@example.com', 'tenant-admin-pw');
      await visit(page, 'REST associations');
      const panel = page.getByRole('region', { name: 'Operator events' });
      const notice = panel.getByRole('list', { name: 'Operator events, newest first' }).getByRole('listitem').first();
      await notice.waitFor();
      const text = await notice.textContent();
      expect(text).toContain('A push of association 7 failed for good');
      expect(text).toContain('the last with HTTP 503');
      expect(text).toContain('Not sent: no webhook was set');
      expect(await notice.locator('code[title="dlv_0c1e5f2a9b7d4e3f8a6b5c4d3e2f1a0b"]').count()).toBe(1);
      await panel.getByText('No operations webhook is set').waitFor();
      await expectFits(page, `operator-events-rest-associations-${viewport}`);
    }
  });
});
