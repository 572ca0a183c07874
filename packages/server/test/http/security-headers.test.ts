/**
 * Every response carries a Content-Security-Policy and `nosniff`: data responses a policy that
 * runs and frames nothing, the console and the API docs their own, including the responses the
 * send-message lane writes on the socket. Headers only: SQLite alone is enough.
 */
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, type TestAssociation } from '../helpers/channel.js';

const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

describe('security headers on every response', () => {
  let t: TestApp;
  let root: string;
  let assoc: TestAssociation;
  let bundle: string;

  beforeAll(async () => {
    bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-'));
    fs.writeFileSync(path.join(bundle, 'index.html'), '<!doctype html><div id="root"></div>');
    t = await createTestApp('sqlite', { env: { PARLEY_CONSOLE_DIR: bundle } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Headers');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(bundle, { recursive: true, force: true });
  });

  it.each([
    ['an API answer', 'GET', '/api/tenants', true],
    ['an API error', 'GET', '/api/tenants', false],
    ['an unknown route', 'GET', '/nowhere', false],
    ['an IM answer', 'GET', '/healthz', false],
    ['the OpenAPI document', 'GET', '/openapi.json', false],
  ] as const)('gives %s the data policy and nosniff', async (_name, method, url, signedIn) => {
    const res = await t.app.inject({ method, url, ...(signedIn ? { headers: { authorization: `Bearer ${root}` } } : {}) });
    expect(res.headers['content-security-policy']).toBe(DATA_POLICY);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('keeps the console its own policy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('gives the Swagger UI a policy that lets its own scripts run, on plain HTTP too, never framed', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    const policy = String(page.headers['content-security-policy']);
    const scriptSrc = policy.split('; ').find((d) => d.startsWith('script-src '));
    expect(scriptSrc).toBe("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('upgrade-insecure-requests');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-security-policy']).toBe(policy);
  });

  it('sets them on the send-message lane and on the agent event stream', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const sent = await postRaw(t.app, assoc, customerMessage({ from: 'headers-1' }));
    expect(sent.status).toBe(200);
    expect(sent.headers['content-security-policy']).toBe(DATA_POLICY);
    expect(sent.headers['x-content-type-options']).toBe('nosniff');

    const controller = new AbortController();
    const tenantId = assoc.postMessageUrl.split('/')[3];
    const stream = await fetch(`http://127.0.0.1:${port}/api/tenants/${tenantId}/events`, { headers: { authorization: `Bearer ${root}` }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-security-policy')).toBe(DATA_POLICY);
    expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
    controller.abort();
  });
});
