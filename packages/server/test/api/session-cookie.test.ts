/**
 * The console's session cookie: `POST /api/login` sets it HttpOnly and SameSite=Strict, it
 * authenticates like the bearer, a state-changing request it authenticates needs the
 * `X-Parley-CSRF: 1` header, and `POST /api/logout` revokes the token and clears the cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type net from 'node:net';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('console session cookie on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
  });
  afterAll(async () => t?.close());

  async function signIn(headers: Record<string, string> = {}) {
    const res = await t.app.inject({ method: 'POST', url: '/api/login', headers, payload: { username: ADMIN.username, password: ADMIN.password } });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    const token = (res.json() as { entity: { access_token: string } }).entity.access_token;
    return { setCookie, token, cookie: `parley_session=${token}` };
  }

  it('sets an HttpOnly, SameSite=Strict session cookie holding the token, for the token lifetime', async () => {
    const { setCookie, token } = await signIn();
    expect(setCookie).toBe(`parley_session=${token}; Path=/; Max-Age=${t.app.parley.config.tokenTtlSeconds}; HttpOnly; SameSite=Strict`);
  });

  it('marks the cookie Secure when Parley is published on https', async () => {
    const secure = await createTestApp(engine, { env: { PARLEY_PUBLIC_URL: 'https://parley.example' } });
    try {
      const res = await secure.app.inject({ method: 'POST', url: '/api/login', payload: { username: ADMIN.username, password: ADMIN.password } });
      expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await secure.close();
    }
  });

  it('authenticates reads by the cookie alone, and state changes only with the CSRF header', async () => {
    const { cookie } = await signIn();
    const read = await t.app.inject({ method: 'GET', url: '/api/tenants', headers: { cookie: `theme=dark; ${cookie}` } });
    expect(read.statusCode).toBe(200);

    const body = { name: 'Cookie Co', edition: 'flagship', admin: { username: 'cookie-admin', password: 'cookie-admin-pw', nickname: 'C' } };
    const forged = await t.app.inject({ method: 'POST', url: '/api/tenants', headers: { cookie }, payload: body });
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ status: 'FAIL', errorCode: 'csrf_required' });
    expect((await t.app.parley.accounts.listTenants()).map((x) => x.name)).not.toContain('Cookie Co');

    const wrongValue = await t.app.inject({ method: 'POST', url: '/api/tenants', headers: { cookie, 'x-parley-csrf': '0' }, payload: body });
    expect(wrongValue.json().errorCode).toBe('csrf_required');

    const allowed = await t.app.inject({ method: 'POST', url: '/api/tenants', headers: { cookie, 'x-parley-csrf': '1' }, payload: body });
    expect(allowed.statusCode).toBe(200);
    // The IM management route the console calls takes the cookie under the same rule.
    const imForged = await t.app.inject({ method: 'POST', url: '/management/apps', headers: { cookie }, payload: { org_name: 'ck', app_name: 'app' } });
    expect(imForged.statusCode).toBe(403);
    expect(imForged.json().error).toBe('csrf_required');
  });

  it('leaves integrators on the bearer unchanged: no CSRF header needed', async () => {
    const { token } = await signIn();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/tenants',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Bearer Co', edition: 'standard', admin: { username: 'bearer-admin', password: 'bearer-admin-pw', nickname: 'B' } },
    });
    expect(res.statusCode).toBe(200);
  });

  it('signs out: the token is revoked everywhere and the cookie cleared', async () => {
    const { cookie, token } = await signIn();
    expect((await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } })).json().errorCode).toBe('csrf_required');
    const out = await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie, 'x-parley-csrf': '1' } });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({ status: 'OK', entity: { signed_out: true } });
    expect(String(out.headers['set-cookie'])).toMatch(/^parley_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await t.app.inject({ method: 'GET', url: '/api/tenants', headers: { cookie } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/tenants', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(401);

    // A bearer client signs out the same way.
    const other = await signIn();
    expect((await t.app.inject({ method: 'POST', url: '/api/logout', headers: { authorization: `Bearer ${other.token}` } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/tenants', headers: { authorization: `Bearer ${other.token}` } })).statusCode).toBe(401);
  });

  it('opens the agent event stream with the cookie alone', async () => {
    const tenant = await createTenant(t.app, await login(t.app, ADMIN.username, ADMIN.password), 'Stream');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const url = `http://127.0.0.1:${port}/api/tenants/${tenant.tenantId}/events`;
    const controller = new AbortController();
    try {
      expect((await fetch(url, { signal: controller.signal })).status).toBe(401);
      const res = await fetch(url, { headers: { cookie: `parley_session=${tenant.adminToken}` }, signal: controller.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
    } finally {
      controller.abort();
    }
  });
});
