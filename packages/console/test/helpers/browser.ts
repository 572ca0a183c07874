/**
 * A real Chromium (Debian's, at /usr/bin/chromium) driven by playwright-core, against a real
 * Parley server listening on loopback. Nothing is downloaded: when Chromium is missing the
 * suite fails and says how to install it.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../server/test/helpers/app.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const CONSOLE_DIST = path.join(REPO_ROOT, 'packages/console/dist');
export const ARTIFACTS = path.join(REPO_ROOT, 'artifacts/console');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A typical laptop screen. */
export const LAPTOP = { width: 1280, height: 800 } as const;
/** A common laptop screen, wider than LAPTOP: where the console's page width tops out. */
export const WIDE = { width: 1366, height: 900 } as const;
/** A typical phone screen. */
export const PHONE = { width: 390, height: 844 } as const;

export function assertPrerequisites(): void {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}. Run "bash scripts/ensure-chromium.sh" (installs Debian's chromium package), then run the browser tests again.`);
  }
  if (!fs.existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
    throw new Error(`The console bundle is missing (${CONSOLE_DIST}/index.html). Run "npm run build" first.`);
  }
}

export async function launchChromium(): Promise<Browser> {
  assertPrerequisites();
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** A port the kernel just handed out on 127.0.0.1, free again: nothing listens there (a refused callback). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A Parley app on a fresh SQLite database, listening on 127.0.0.1 and a free port. Uploaded
 * media URLs carry PARLEY_PUBLIC_URL, so the port is chosen first and the public URL names it
 * (the browser loads uploaded images from there). `env` adds settings.
 */
export async function startServer(env: Record<string, string> = {}): Promise<{ t: TestApp; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await createTestApp('sqlite', { env: { PARLEY_PUBLIC_URL: baseUrl, ...env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, baseUrl };
}

/**
 * Collects everything that counts as a browser-side failure: uncaught page errors, console
 * errors and failed requests. An API error a test provokes on purpose is declared with
 * `expectHttpError`; the browser logs those as console errors, and only those are excused.
 */
export class PageProblems {
  private readonly problems: string[] = [];
  private readonly expected: Array<{ status: number; path: string }> = [];

  constructor(page: Page) {
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => this.onConsole(message));
    page.on('requestfailed', (request) => {
      const failure = request.failure()?.errorText ?? 'unknown';
      // Requests cancelled because the page moved on are not failures.
      if (failure !== 'net::ERR_ABORTED') this.problems.push(`request failed: ${request.method()} ${request.url()} (${failure})`);
    });
    page.on('response', (response) => {
      if (response.status() >= 500) this.problems.push(`server error: ${response.status()} ${response.url()}`);
    });
  }

  expectHttpError(status: number, path: string): void {
    this.expected.push({ status, path });
  }

  private onConsole(message: ConsoleMessage): void {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const text = message.text();
    const url = message.location().url;
    const excused = this.expected.some((e) => text.includes(`status of ${e.status}`) && new URL(url, 'http://x').pathname === e.path);
    if (!excused) this.problems.push(`console ${message.type()}: ${text}${url ? ` (${url})` : ''}`);
  }

  list(): string[] {
    return [...this.problems];
  }
}

export async function newPage(browser: Browser, viewport: { width: number; height: number } = LAPTOP): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page, problems: new PageProblems(page) };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Every visible form control must have a label a screen reader can announce. */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const controls = Array.from(document.querySelectorAll('input, select, textarea')) as Array<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>;
    return controls
      .filter((c) => c.type !== 'hidden' && !(c.labels && c.labels.length > 0) && !c.getAttribute('aria-label') && !c.getAttribute('aria-labelledby'))
      .map((c) => c.outerHTML);
  });
}

/** True when the page fits the window's width (no horizontal scrolling). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}
