/**
 * Accounts that are safe to expose: demo accounts with passwords (and hashes) of their own, IM
 * user passwords of a minimum length, and login names whose holder a tenant admin cannot learn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp } from '../helpers/im.js';

describe.each(ENGINES)('account hardening on %s', (engine) => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives the demo admin and agent generated passwords of their own, with their own salts and hashes', async () => {
    const demo = t.app.parley.bootstrap.demoPasswords;
    expect(demo).toBeDefined();
    const passwords = [ADMIN.password, demo!.admin, demo!.agent];
    expect(new Set(passwords).size).toBe(3);
    expect(demo!.admin.length).toBeGreaterThanOrEqual(20);
    await login(t.app, 'demo-admin@parley.local', demo!.admin);
    await login(t.app, 'demo-agent@parley.local', demo!.agent);
    // The admin's password opens neither demo account.
    const res = await call(t.app, undefined, 'POST', '/api/login', { username: 'demo-agent@parley.local', password: ADMIN.password });
    expect(res.status).toBe(401);
    const rows = await t.app.parley.storage.db
      .selectFrom('users')
      .select(['username', 'password_hash'])
      .where('username', 'in', [ADMIN.username, 'demo-admin@parley.local', 'demo-agent@parley.local'])
      .execute();
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.password_hash)).size).toBe(3);
    const salts = rows.map((r) => r.password_hash.split('$')[4]);
    expect(new Set(salts).size).toBe(3);
  });

  it('refuses IM user passwords shorter than 6 characters with 400 illegal_argument naming the field, and writes nothing', async () => {
    const im = await createImApp(t.app, 'hard', 'pw');
    const one = await call(t.app, im.adminToken, 'POST', `${im.base}/users`, { username: 'shorty', password: '12345' });
    expect(one.status).toBe(400);
    expect(one.body.error).toBe('illegal_argument');
    expect(one.body.error_description).toMatch(/^password: must be at least 6 characters/);
    const batch = await call(t.app, im.adminToken, 'POST', `${im.base}/users`, [
      { username: 'long-enough', password: '123456' },
      { username: 'too-short', password: 'x' },
    ]);
    expect(batch.status).toBe(400);
    expect(batch.body.error_description).toMatch(/^\[1\]\.password:/);
    for (const name of ['shorty', 'long-enough', 'too-short']) {
      expect((await call(t.app, im.adminToken, 'GET', `${im.base}/users/${name}`)).status).toBe(404);
    }
    // Six characters are enough (characters, not bytes: 6 CJK characters too).
    expect((await call(t.app, im.adminToken, 'POST', `${im.base}/users`, { username: 'sixer', password: '密码密码密码' })).status).toBe(200);
  });

  it('answers a login name held in another tenant exactly as one held in the own tenant, and budgets such answers per tenant', async () => {
    const a = await createTenant(t.app, root, 'ProbeA');
    const b = await createTenant(t.app, root, 'ProbeB');
    const agent = (username: string) => ({ username, password: 'agent-pw-123', nickname: 'n', role: 'agent' });
    const create = (token: string, tenantId: number, username: string) => call(t.app, token, 'POST', `/api/tenants/${tenantId}/agents`, agent(username));
    // Everything a refusal says, with the name it echoes taken out.
    const shape = (res: { status: number; body: { errorCode: string; errorDescription: string }; headers: Record<string, unknown> }, name: string) => ({
      status: res.status,
      code: res.body.errorCode,
      description: res.body.errorDescription.split(name).join('NAME'),
      retryAfter: res.headers['retry-after'],
    });
    expect((await create(a.adminToken, a.tenantId, 'own@a.example')).status).toBe(200);
    const own = shape(await create(a.adminToken, a.tenantId, 'own@a.example'), 'own@a.example');
    const other = shape(await create(a.adminToken, a.tenantId, 'probeb-admin@example.com'), 'probeb-admin@example.com');
    expect(own.status).toBe(409);
    expect(other).toEqual(own);

    // 2 taken-name answers so far; 8 more fill the hour's budget of 10.
    for (let i = 0; i < 8; i++) expect((await create(a.adminToken, a.tenantId, 'probeb-admin@example.com')).status).toBe(409);
    // Past it every creation is refused alike, taken name or free one: the answer tells nothing.
    const taken = await create(a.adminToken, a.tenantId, 'probeb-admin@example.com');
    const free = await create(a.adminToken, a.tenantId, 'free-name@a.example');
    for (const res of [taken, free]) {
      expect(res.status).toBe(429);
      expect(res.body.errorCode).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another tenant has its own budget; the hour over, tenant A creates again.
    expect((await create(b.adminToken, b.tenantId, 'free-name@b.example')).status).toBe(200);
    (t.clock as FakeClock).advance(3_600_000);
    expect((await create(a.adminToken, a.tenantId, 'free-name@a.example')).status).toBe(200);
  });
});
