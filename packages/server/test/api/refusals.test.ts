/**
 * The first refusals a newcomer meets say how to get past them: a callback URL on a local address
 * names PARLEY_ALLOW_PRIVATE_CALLBACKS (and a start with it on logs a warning), a tenant whose
 * edition lacks the REST channel names the edition and the call that changes it, and the exception
 * store of an app whose callback service is off names the call and the console switch that turn it
 * on. The codes stay as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createImApp } from '../helpers/im.js';

type LogLine = { level: number; msg?: string };
const WARN = 40;
const capture = (lines: LogLine[]) => ({ logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } });
const flagWarnings = (lines: LogLine[]) => lines.filter((l) => l.level === WARN && l.msg?.includes('PARLEY_ALLOW_PRIVATE_CALLBACKS'));

describe('refusals without PARLEY_ALLOW_PRIVATE_CALLBACKS', () => {
  let t: TestApp;
  let root = '';
  const lines: LogLine[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'false', LOG_LEVEL: 'info' }, deps: capture(lines) });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('logs no warning about the setting at start', () => {
    expect(flagWarnings(lines)).toEqual([]);
  });

  it('a loopback callback address of an association names the setting that allows it', async () => {
    const tenant = await createTenant(t.app, root, 'Refusals');
    for (const url of ['http://127.0.0.1:9090/parley', 'http://localhost:9090/parley']) {
      const res = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, { name: `local ${url.length}${url[7]}`, callback_url: url });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('invalid_callback_url');
      expect(res.body.errorDescription).toMatch(/internal address \(loopback, private, link-local or metadata\)/);
      expect(res.body.errorDescription).toContain('PARLEY_ALLOW_PRIVATE_CALLBACKS=true');
    }
  });

  it('a loopback callback rule of an IM app names the setting too', async () => {
    const im = await createImApp(t.app);
    const res = await call(t.app, im.adminToken, 'POST', `${im.base}/callbacks/rules`, { name: 'local', url: 'http://127.0.0.1:9000/' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_callback_url');
    expect(res.body.error_description).toContain('PARLEY_ALLOW_PRIVATE_CALLBACKS=true');
  });

  it('a standard-edition tenant is told which edition the REST channel needs and how to change it', async () => {
    const tenant = await createTenant(t.app, root, 'Standard', 'standard');
    const res = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, { name: 'shop', callback_url: 'https://example.com/hook' });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('edition_not_supported');
    expect(res.body.errorDescription).toBe(
      `The tenant edition standard does not include the REST channel; the flagship edition is required. A system admin changes it with PUT /api/tenants/${tenant.tenantId} {"edition":"flagship"}`,
    );
  });

  it('the exception store of an app whose callback service is off names the call and the console switch that turn it on', async () => {
    const im = await createImApp(t.app, 'first', 'hour');
    const res = await call(t.app, im.adminToken, 'GET', `${im.base}/callbacks/storage/info`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('callback_service_disabled');
    expect(res.body.error_description).toContain('PUT /first/hour/callbacks/service {"enabled":true}');
    expect(res.body.error_description).toContain("Callback service switch on the console's Callback rules page");
  });
});

describe('a start with PARLEY_ALLOW_PRIVATE_CALLBACKS=true', () => {
  it('logs one warning naming the setting', async () => {
    const lines: LogLine[] = [];
    const t = await createTestApp('sqlite', { env: { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true', LOG_LEVEL: 'info' }, deps: capture(lines) });
    try {
      expect(flagWarnings(lines)).toHaveLength(1);
      expect(flagWarnings(lines)[0]?.msg).toContain('local testing only');
    } finally {
      await t.close();
    }
  });
});
