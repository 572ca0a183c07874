/**
 * First paint of /console on loopback stays under one second (issue 6 acceptance). Each run
 * uses a fresh browser context, so nothing comes from the cache. The first contentful paint is
 * index.html's loading line; the time until React has rendered the sign-in form is measured too,
 * with a looser bound, because that is what a person waits for.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../server/test/helpers/app.js';
import { ARTIFACTS, launchChromium, newPage, startServer } from './helpers/browser.js';

const RUNS = 5;
const LIMIT_MS = 1000;
/** Sign-in form on screen; generous because the two cores are shared with other test files. */
const FORM_LIMIT_MS = 2500;

interface Timing {
  firstPaint: number;
  firstContentfulPaint: number;
  domContentLoaded: number;
  load: number;
  signInFormRendered: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

describe('console first paint on loopback', { timeout: 120_000 }, () => {
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

  it(`paints /console in under ${LIMIT_MS} ms and shows the sign-in form in under ${FORM_LIMIT_MS} ms (medians of ${RUNS} cold loads)`, async () => {
    // One load that is not counted: it starts the browser's network and renderer processes, which
    // is browser start-up, not the console's paint.
    const warmUp = await newPage(browser);
    await warmUp.page.goto(`${server.baseUrl}/console`);
    await warmUp.context.close();

    const timings: Timing[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { context, page, problems } = await newPage(browser);
      await page.goto(`${server.baseUrl}/console`, { waitUntil: 'commit' });
      // Polled on every animation frame inside the page, so the time is that of the frame that showed it.
      const signInFormRendered = await page
        .waitForFunction(() => (document.getElementById('sign-in-title') ? performance.now() : false), undefined, { polling: 'raf' })
        .then((handle) => handle.jsonValue() as Promise<number>);
      await page.waitForLoadState('load');
      const timing = await page.evaluate(async (formMs) => {
        const paint = (name: string) => performance.getEntriesByName(name, 'paint')[0]?.startTime ?? Number.NaN;
        // A paint entry is queued once its frame is presented, which on a busy machine can come
        // after `load`: wait for it (at most 5 s) rather than read an empty list.
        if (!Number.isFinite(paint('first-contentful-paint'))) {
          await new Promise<void>((resolve) => {
            const observer = new PerformanceObserver(() => {
              if (Number.isFinite(paint('first-contentful-paint'))) done();
            });
            const timer = setTimeout(() => done(), 5000);
            function done() {
              clearTimeout(timer);
              observer.disconnect();
              resolve();
            }
            observer.observe({ type: 'paint', buffered: true });
          });
        }
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return {
          firstPaint: paint('first-paint'),
          firstContentfulPaint: paint('first-contentful-paint'),
          domContentLoaded: nav?.domContentLoadedEventEnd ?? Number.NaN,
          load: nav?.loadEventEnd ?? Number.NaN,
          signInFormRendered: formMs,
        };
      }, signInFormRendered);
      expect(problems.list()).toEqual([]);
      timings.push(timing);
      await context.close();
    }
    const fcp = timings.map((t) => t.firstContentfulPaint);
    expect(fcp.every((v) => Number.isFinite(v))).toBe(true);
    const summary = {
      runs: RUNS,
      medianFirstPaintMs: Math.round(median(timings.map((t) => t.firstPaint))),
      medianFirstContentfulPaintMs: Math.round(median(fcp)),
      maxFirstContentfulPaintMs: Math.round(Math.max(...fcp)),
      medianDomContentLoadedMs: Math.round(median(timings.map((t) => t.domContentLoaded))),
      medianLoadMs: Math.round(median(timings.map((t) => t.load))),
      medianSignInFormRenderedMs: Math.round(median(timings.map((t) => t.signInFormRendered))),
      timings,
    };
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'first-paint.json'), JSON.stringify(summary, null, 2));
    console.log(
      `console first contentful paint: median ${summary.medianFirstContentfulPaintMs} ms, max ${summary.maxFirstContentfulPaintMs} ms; ` +
        `sign-in form rendered: median ${summary.medianSignInFormRenderedMs} ms (${RUNS} cold loads)`,
    );
    expect(summary.medianFirstContentfulPaintMs).toBeLessThan(LIMIT_MS);
    expect(summary.medianSignInFormRenderedMs).toBeLessThan(FORM_LIMIT_MS);
  });
});
