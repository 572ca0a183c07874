/**
 * The system admin's IM pages in a real Chromium against a real server, with a real callback
 * receiver on 127.0.0.1: the IM apps are listed with their client IDs and opened without their
 * secret, and a rotated secret is shown once (the old one stops granting tokens); a callback rule
 * is deleted after a confirm; a stored key shows its date as a readable time with its zone, and
 * after a re-send each record shows how it went (a delivered one no longer shows its old error in
 * red); a callback refused by its receiver is stored and shown with its message text, a short call
 * id and one clean error. While the app's callback service is off, the rules and IM apps pages
 * say so with the switch to turn it on; a rule's own switch and its delivery state are named
 * apart. Every step fails on a page error, console error or failed request, and leaves a
 * screenshot in artifacts/console/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import { ADMIN, call, type TestApp } from '../../server/test/helpers/app.js';
import { CallbackReceiver } from '../../server/test/helpers/callback-receiver.js';
import { createImApp, createUsers, type ImAppHandle } from '../../server/test/helpers/im.js';
import { storeRecords } from '../../server/test/helpers/stored-records.js';
import { freePort, launchChromium, newPage, screenshot, startServer, unlabelledControls, type PageProblems } from './helpers/browser.js';

const KEY = '202611241300';

describe('IM administration in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let receiver: CallbackReceiver;
  let im: ImAppHandle;
  const opened: Array<{ problems: PageProblems; name: string }> = [];
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(server.t.app, im.adminToken, method, `${im.base}${path}`, body);
  const grant = (secret: string) => call(server.t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'client_credentials', client_id: im.clientId, client_secret: secret });

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_IM_RATE_LIMIT: '100000' });
    receiver = await CallbackReceiver.start();
    im = await createImApp(server.t.app, 'acme', 'shop');
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

  /** A new tab signed in as the system admin on `path` (no IM app open yet: it is per tab). */
  async function adminAt(path: string): Promise<Page> {
    const { page, problems } = await newPage(browser);
    opened.push({ problems, name: path });
    await page.goto(`${server.baseUrl}/console${path}`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  async function openApp(page: Page): Promise<void> {
    const list = page.getByRole('table', { name: 'IM apps' });
    await list.getByRole('button', { name: 'Open acme#shop' }).click();
    await page.locator('.app-bar').getByText('acme#shop', { exact: true }).waitFor();
  }

  it('lists the IM apps with their client IDs, opens one without its secret, and rotates a secret shown once', async () => {
    const page = await adminAt('/im-apps');
    const list = page.getByRole('table', { name: 'IM apps' });
    const row = list.getByRole('row').filter({ hasText: 'acme#shop' });
    await row.waitFor();
    expect(await row.textContent()).toContain(im.clientId);
    expect(await list.getByRole('row').filter({ hasText: 'demo#demo' }).count()).toBe(1);
    // No secret anywhere on the page: opening needs only the signed-in system admin.
    expect(await page.getByLabel(/secret/i).count()).toBe(0);
    await openApp(page);
    // The app's own admin endpoints answer the console: its sensitive words load.
    await page.getByLabel('Words (comma-separated)').waitFor();
    expect(await unlabelledControls(page)).toEqual([]);

    await row.getByRole('button', { name: 'Rotate secret… of acme#shop' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Rotate the client secret of acme#shop' });
    await dialog.getByRole('button', { name: 'Yes, rotate' }).click();
    await page.getByRole('status').filter({ hasText: 'New client secret of acme#shop' }).waitFor();
    const fresh = (await page.locator('.kv').filter({ hasText: 'New client secret' }).locator('code').textContent())!;
    expect(fresh).toMatch(/^[0-9a-f]{48}$/);
    await screenshot(page, 'im-apps');
    // The new secret grants tokens, and so does the old one during the 24-hour overlap (contract 6.6).
    expect(await page.getByRole('status').filter({ hasText: 'The old one keeps working for 24 hours' }).count()).toBe(1);
    expect((await grant(fresh)).status).toBe(200);
    expect((await grant(im.clientSecret)).status).toBe(200);
    im = { ...im, clientSecret: fresh };
    // Shown once: hidden on request, and not there after a reload.
    await page.getByRole('button', { name: 'Done, hide the secret' }).click();
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(fresh);
  });

  it('deletes a callback rule after a confirm', async () => {
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    for (const name of ['main', 'audit']) expect((await api('POST', '/callbacks/rules', { name, url: receiver.url })).status).toBe(200);
    const page = await adminAt('/callback-rules');
    await openApp(page);
    const rule = page.getByRole('article', { name: 'Rule audit' });
    await rule.waitFor();

    // Cancel keeps it.
    await rule.getByRole('button', { name: 'Delete audit…' }).click();
    const dialog = rule.getByRole('alertdialog', { name: 'Delete the rule audit' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await api('GET', '/callbacks/rules')).body.entities).toHaveLength(2);

    await rule.getByRole('button', { name: 'Delete audit…' }).click();
    await screenshot(page, 'callback-rules');
    await dialog.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Rule audit deleted.' }).waitFor();
    await rule.waitFor({ state: 'detached' });
    await page.getByRole('article', { name: 'Rule main' }).waitFor();
    expect((await api('GET', '/callbacks/rules')).body.entities.map((r: { name: string }) => r.name)).toEqual(['main']);
  });

  it('says when the callback service is off, with its switch, and names the rule switch and the delivery state apart', async () => {
    await api('PUT', '/callbacks/service', { enabled: false });
    const page = await adminAt('/callback-rules');
    await openApp(page);
    const banner = page.getByRole('region', { name: 'The callback service is off' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('The callback service of acme#shop is off.');
    expect(await page.getByLabel('Callback service on').isChecked()).toBe(false);
    const rule = page.getByRole('article', { name: 'Rule main' });
    expect(await rule.getByTestId('rule-switch').locator('.badge').textContent()).toBe('On');
    expect(await rule.getByTestId('rule-delivery').locator('.badge').textContent()).toBe('Active');
    expect(await rule.textContent()).toContain('Nothing is sent while the callback service is off.');
    await screenshot(page, 'callback-service-off');

    // The IM apps page says it of the open app too, and turns the service on from the banner.
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'IM apps' }).click();
    await banner.waitFor();
    await screenshot(page, 'im-apps-callback-service-off');
    await banner.getByRole('button', { name: 'Turn the callback service on' }).click();
    await banner.waitFor({ state: 'detached' });
    expect((await api('GET', '/callbacks/service')).body.data.enabled).toBe(true);

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Callback rules' }).click();
    await rule.waitFor();
    expect(await page.getByLabel('Callback service on').isChecked()).toBe(true);
    expect(await banner.count()).toBe(0);
    expect(await rule.textContent()).not.toContain('Nothing is sent');
    // The rule's own switch: off, then on again, each named as such and stored.
    await rule.getByRole('button', { name: 'Turn off rule main' }).click();
    await expect.poll(() => rule.getByTestId('rule-switch').locator('.badge').textContent()).toBe('Off');
    expect(await rule.textContent()).toContain('Nothing is sent while the rule is off.');
    expect(await rule.getByTestId('rule-delivery').locator('.badge').textContent()).toBe('Active');
    expect((await api('GET', '/callbacks/rules/main')).body.data.enabled).toBe(false);
    await rule.getByRole('button', { name: 'Turn on rule main' }).click();
    await expect.poll(() => rule.getByTestId('rule-switch').locator('.badge').textContent()).toBe('On');
    expect((await api('GET', '/callbacks/rules/main')).body.data.enabled).toBe(true);
  });

  it('shows a date key as a readable time with its zone, and each record whether its last re-send succeeded', async () => {
    const { callbacks, im: imModule, jobs } = server.t.app.parley;
    const app = await imModule.apps.requireApp(im.org, im.name);
    const rule = await callbacks.service.rule(app.id, 'main');
    const [good, bad] = await storeRecords(callbacks.repo, { appId: app.id, appkey: 'acme#shop', ruleId: rule.id, ruleName: 'main', dateKey: KEY }, 2, server.t.clock.now());
    const page = await adminAt('/exception-store');
    await openApp(page);
    const keyRow = page.getByRole('row').filter({ hasText: KEY });
    await keyRow.waitFor();
    expect(await keyRow.getByRole('cell').first().textContent()).toBe(`${KEY} — 24 Nov 2026, 13:00 UTC`);
    await keyRow.getByRole('button', { name: `Open key ${KEY}` }).click();
    const detail = page.getByRole('region', { name: `Key ${KEY}` });
    const record = (callId: string) => detail.locator(`tr[data-call-id="${callId}"]`);
    await record(good as string).waitFor();
    expect(await record(good as string).textContent()).toContain('Not re-sent');
    expect(await detail.locator('td.error-text', { hasText: 'HTTP 500' }).count()).toBe(2);

    // The receiver takes one record and keeps refusing the other.
    receiver.respond = (req) => ((JSON.parse(req.body) as CallbackRecord).callId === bad ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    await detail.getByRole('button', { name: 'Re-send this key' }).click();
    await detail.getByRole('status').filter({ hasText: `Key ${KEY} queued for re-sending` }).waitFor();
    jobs.notifyAll();
    await jobs.idle();
    await detail.getByRole('button', { name: 'Refresh records' }).click();

    const delivered = record(good as string);
    await delivered.locator('[data-resend="success"]').waitFor();
    expect(await delivered.textContent()).toContain('Re-sent');
    // Its old error is history now: still readable, no longer in the error colour.
    const old = delivered.getByRole('cell', { name: 'HTTP 500 (before the re-send)' });
    const failed = record(bad as string);
    await failed.locator('[data-resend="failure"]').waitFor();
    const failedError = failed.locator('td.error-text');
    expect(await failedError.textContent()).toMatch(/^re-send failed: .*503/);
    const colour = (cell: typeof old) => cell.evaluate((el) => getComputedStyle(el).color);
    expect(await colour(old)).not.toBe(await colour(failedError));
    expect(await delivered.locator('td.error-text').count()).toBe(0);
    await screenshot(page, 'exception-store');
  });

  it("shows a stored callback's message text, a short call id (whole in its tooltip, with a copy button) and one clean error", async () => {
    // Nothing listens there: each callback is refused.
    const port = await freePort();
    expect((await api('POST', '/callbacks/rules', { name: 'unreachable', url: `http://127.0.0.1:${port}/hook` })).status).toBe(200);
    await createUsers(server.t.app, im, 'alice', 'bob');
    expect((await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'Where is my parcel?' } })).status).toBe(200);
    server.t.app.parley.jobs.notifyAll();
    await server.t.app.parley.jobs.idle();
    const keys = (await api('GET', '/callbacks/storage/info')).body.data as Array<{ date: string }>;
    const date = keys.map((k) => k.date).find((d) => d !== KEY) as string;
    const stored = (await api('GET', `/callbacks/storage/${date}`)).body.entities as Array<{ callId: string; msg_id: string }>;
    expect(stored).toHaveLength(2);

    const page = await adminAt('/exception-store');
    await openApp(page);
    await page.getByRole('button', { name: `Open key ${date}` }).click();
    const table = page.getByRole('table', { name: `Records of key ${date}` });
    for (const { callId, msg_id: msgId } of stored) {
      const row = table.locator(`tr[data-call-id="${callId}"]`);
      const id = row.locator('td').first().locator('code');
      expect(await id.textContent()).toMatch(/^[0-9a-f]{8}…$/);
      expect(await id.getAttribute('title')).toBe(callId);
      await row.getByRole('button', { name: `Copy call ID ${callId}` }).waitFor();
      // One line, not wrapped over several.
      expect(await id.evaluate((el) => el.getBoundingClientRect().height < parseFloat(getComputedStyle(el).lineHeight) * 1.5)).toBe(true);
      expect(await row.textContent()).not.toContain(callId);
      const message = row.locator('td').nth(2);
      expect(await message.textContent()).toBe('Where is my parcel?alice → bob');
      expect(await message.textContent()).not.toContain(msgId);
      expect(await row.locator('td.error-text').textContent()).toBe(`connection: refused (127.0.0.1:${port})`);
    }
    await screenshot(page, 'exception-store-records');
  });
});
