/**
 * The Cluster page in a real browser against a real server: a system admin opens it from the
 * navigation and sees this instance with its jobs in flight and last heartbeat, as /readyz lists
 * it; the list refreshes by itself. Leaves artifacts/console-cluster.png.
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../server/test/helpers/app.js';
import { ADMIN } from '../../server/test/helpers/app.js';
import type { FakeClock } from '../../server/test/helpers/clock.js';
import { fitsWidth, launchChromium, newPage, REPO_ROOT, startServer } from './helpers/browser.js';

describe('console Cluster page in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
  });

  it('lists the live instances with their jobs in flight and last heartbeat, refreshing by itself', async () => {
    const { context, page, problems } = await newPage(browser);
    try {
      await page.goto(`${server.baseUrl}/`);
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Tenants');
      await page.getByRole('link', { name: 'Cluster' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Cluster');

      const id = server.t.app.parley.membership.id;
      const row = page.getByRole('row').filter({ hasText: id });
      await expect.poll(() => row.count()).toBe(1);
      await expect.poll(() => row.textContent()).toContain('serving this page');
      expect(await page.getByText('Ready', { exact: true }).count()).toBe(1);
      // The next heartbeats carry the server's (fake) time two minutes on: the page shows the newer
      // one without being reloaded.
      const first = await row.locator('td').nth(2).textContent();
      (server.t.clock as FakeClock).advance(120_000);
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).not.toBe(first);
      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: path.join(REPO_ROOT, 'artifacts/console-cluster.png'), fullPage: true });
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
