/**
 * Serving the web console at /console. The bundle here is a small stand-in written by the test,
 * so these checks do not depend on a console build; the real bundle is driven in a browser by
 * packages/console/test. Static serving does not touch storage, so SQLite alone is enough.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/console/assets/app-1a2b3c.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("console bundle")';

function writeBundle(): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-'));
  const dir = path.join(parent, 'dist');
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b3c.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
  // A file beside the bundle that must never be reachable through /console.
  fs.writeFileSync(path.join(parent, 'secret.txt'), 'not for the web');
  return dir;
}

describe('web console served at /console', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = writeBundle();
    t = await createTestApp('sqlite', { env: { PARLEY_CONSOLE_DIR: dir } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it('redirects / to /console', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console');
  });

  it('serves index.html at /console, uncached and with a strict Content-Security-Policy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toBe(INDEX);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
  });

  it('answers deep links with index.html so the client-side router can show the page', async () => {
    for (const url of ['/console/', '/console/tenants', '/console/agents?x=1', '/console/some/nested/page', '/console/index.html']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toBe(INDEX);
    }
  });

  it('serves hashed assets with a long immutable cache and other files uncached', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/console/assets/app-1a2b3c.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.body).toBe(SCRIPT);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const robots = await t.app.inject({ method: 'GET', url: '/console/robots.txt' });
    expect(robots.statusCode).toBe(200);
    expect(robots.body).toContain('Disallow');
    expect(robots.headers['cache-control']).toBe('no-cache');
  });

  it('answers a missing asset with 404 in the IM envelope, not with index.html', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/assets/app-000000.js' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'route_not_found', exception: 'RouteNotFoundException' });
  });

  it('never reads a file outside the bundle', async () => {
    for (const url of ['/console/../secret.txt', '/console/%2e%2e/secret.txt', '/console/assets/..%2f..%2fsecret.txt', '/console/%2e%2e%2fsecret.txt']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.body, url).not.toContain('not for the web');
    }
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = Object.keys((res.json() as { paths: Record<string, unknown> }).paths);
    expect(paths.some((p) => p === '/' || p.startsWith('/console'))).toBe(false);
    expect(paths).toContain('/api/login');
  });
});

describe('web console without a built bundle', () => {
  let t: TestApp;
  let empty: string;
  beforeAll(async () => {
    empty = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-empty-'));
    t = await createTestApp('sqlite', { env: { PARLEY_CONSOLE_DIR: empty } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('answers 503 in the IM envelope naming the missing build, and the rest of the server works', async () => {
    for (const url of ['/console', '/console/tenants']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      const body = res.json() as { error: string; error_description: string; exception: string };
      expect(body.error).toBe('service_unavailable');
      expect(body.exception).toBe('ServiceUnavailableException');
      expect(body.error_description).toContain('web console is not built');
      expect(body.error_description).toContain('npm run build');
    }
    expect((await t.app.inject({ method: 'GET', url: '/' })).headers.location).toBe('/console');
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
