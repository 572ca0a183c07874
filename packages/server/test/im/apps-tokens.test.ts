/**
 * IM apps and tokens (contract 4.1): who may create apps, both token kinds with their ttl and
 * expiry, the levels enforced on endpoints, unknown apps, the envelope, and the per-app 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, PASSWORD, userToken, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('IM apps and tokens on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let clock: FakeClock;

  beforeAll(async () => {
    t = await createTestApp(engine);
    clock = t.clock as FakeClock;
    im = await createImApp(t.app, 'acme', 'shop');
    await createUsers(t.app, im, 'alice', 'bob');
  });
  afterAll(async () => t?.close());

  it('creates an app for the system admin only, with appkey, UUID and client credentials', async () => {
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const res = await call(t.app, root, 'POST', '/management/apps', { org_name: 'org1', app_name: 'app1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/management/apps', action: 'post', organization: 'org1', applicationName: 'app1' });
    expect(res.body.data.appkey).toBe('org1#app1');
    expect(res.body.data.application).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.application).toBe(res.body.data.application);
    expect(res.body.data.client_id).toEqual(expect.any(String));
    expect(res.body.data.client_secret).toEqual(expect.any(String));

    const dup = await call(t.app, root, 'POST', '/management/apps', { org_name: 'org1', app_name: 'app1' });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toBe('duplicate_unique_property_exists');

    const { adminToken: tenantAdmin } = await createTenant(t.app, root, 'Tenant IM');
    const forbidden = await call(t.app, tenantAdmin, 'POST', '/management/apps', { org_name: 'org2', app_name: 'app2' });
    expect(forbidden.status).toBe(403);
    expect((await call(t.app, undefined, 'POST', '/management/apps', { org_name: 'org2', app_name: 'app2' })).body.error).toBe('unauthorized');
    const badName = await call(t.app, root, 'POST', '/management/apps', { org_name: 'bad org', app_name: 'x' });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toBe('illegal_argument');
    expect(badName.body.error_description).toContain('org_name');
  });

  it('bootstraps the demo app demo/demo once', async () => {
    expect(t.app.parley.imDemoApp?.appkey).toBe('demo#demo');
    const { client_id, client_secret } = t.app.parley.imDemoApp!;
    const token = await call(t.app, undefined, 'POST', '/demo/demo/token', { grant_type: 'client_credentials', client_id, client_secret });
    expect(token.status).toBe(200);
    expect(await t.app.parley.im.apps.ensureDemoApp()).toBeUndefined();
    const rows = await t.app.parley.storage.db.selectFrom('im_apps').select('id').where('org_name', '=', 'demo').execute();
    expect(rows).toHaveLength(1);
  });

  it('issues app tokens for client credentials and user tokens for passwords, with ttl', async () => {
    const app = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'client_credentials', client_id: im.clientId, client_secret: im.clientSecret, ttl: 120 });
    expect(app.status).toBe(200);
    expect(app.body).toEqual({ access_token: expect.any(String), expires_in: 120, application: expect.any(String) });
    const user = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'ALICE', password: PASSWORD });
    expect(user.status).toBe(200);
    expect(user.body.expires_in).toBe(7 * 24 * 3600);
    expect(user.body.user).toMatchObject({ username: 'alice', type: 'user', activated: true });

    // The app token works until its ttl passes, then it is a bad token.
    expect((await call(t.app, app.body.access_token, 'GET', `${im.base}/users/alice`)).status).toBe(200);
    clock.advance(121_000);
    const expired = await call(t.app, app.body.access_token, 'GET', `${im.base}/users/alice`);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('auth_bad_access_token');
  });

  it('rejects wrong credentials with 400 invalid_grant and bad ttl with 400', async () => {
    for (const body of [
      { grant_type: 'client_credentials', client_id: im.clientId, client_secret: 'wrong' },
      { grant_type: 'client_credentials', client_id: 'nobody', client_secret: im.clientSecret },
      { grant_type: 'password', username: 'alice', password: 'wrong-password' },
      { grant_type: 'password', username: 'ghost', password: PASSWORD },
    ]) {
      const res = await call(t.app, undefined, 'POST', `${im.base}/token`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      expect(res.body.exception).toBe('InvalidGrantException');
    }
    const ttl = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'alice', password: PASSWORD, ttl: -5 });
    expect(ttl.status).toBe(400);
    expect(ttl.body.error).toBe('illegal_argument');
  });

  it('enforces the two levels: 401 without or with a bad token, 403 for a user token on admin endpoints', async () => {
    const none = await call(t.app, undefined, 'GET', `${im.base}/users/alice`);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthorized');
    const bad = await call(t.app, 'not-a-token', 'GET', `${im.base}/users/alice`);
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('auth_bad_access_token');

    const alice = await userToken(t.app, im, 'alice');
    // (A user creates groups of its own with its token: group-operations.test.ts.)
    for (const [method, url, payload] of [
      ['POST', `${im.base}/users`, { username: 'carol', password: PASSWORD }],
      ['DELETE', `${im.base}/users/bob`, undefined],
      ['POST', `${im.base}/messages/users`, { to: ['bob'], type: 'txt', body: { msg: 'x' } }],
      ['GET', `${im.base}/chatgroups`, undefined],
      ['PUT', `${im.base}/moderation/sensitive-words`, { words: ['x'] }],
    ] as const) {
      const res = await call(t.app, alice, method, url, payload);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    // A user reads itself, not others.
    expect((await call(t.app, alice, 'GET', `${im.base}/users/alice`)).status).toBe(200);
    expect((await call(t.app, alice, 'GET', `${im.base}/users/bob`)).status).toBe(403);

    // Another app's token is a bad token here.
    const other = await createImApp(t.app, 'other', 'app');
    const cross = await call(t.app, other.adminToken, 'GET', `${im.base}/users/alice`);
    expect(cross.status).toBe(401);
    expect(cross.body.error).toBe('auth_bad_access_token');
  });

  it('answers 404 organization_application_not_found for an unknown app', async () => {
    const res = await call(t.app, im.adminToken, 'GET', '/nope/nothing/users/alice');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'organization_application_not_found', exception: 'OrganizationApplicationNotFoundException' });
    expect(res.body.timestamp).toEqual(expect.any(Number));
    expect(res.body.duration).toEqual(expect.any(Number));
  });

  it('documents the IM surface in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths as Record<string, unknown>);
    for (const p of ['/management/apps', '/{org}/{app}/token', '/{org}/{app}/users', '/{org}/{app}/messages/users', '/{org}/{app}/messages', '/{org}/{app}/chatgroups', '/{org}/{app}/moderation/sensitive-words']) {
      expect(paths, p).toContain(p);
    }
  });

  it('renders the IM success envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${im.base}/users/alice?x=1`, headers: { authorization: `Bearer ${im.adminToken}`, host: 'im.example.com' } });
    const body = res.json();
    expect(body).toMatchObject({
      path: '/users/alice',
      uri: 'http://im.example.com/acme/shop/users/alice?x=1',
      organization: 'acme',
      applicationName: 'shop',
      action: 'get',
    });
    expect(body.application).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.timestamp).toEqual(expect.any(Number));
    expect(body.duration).toBeGreaterThanOrEqual(0);
    expect(body.entities[0]).toMatchObject({ username: 'alice', type: 'user' });
  });
});

describe.each(ENGINES)('IM per-app rate limit on %s', (engine) => {
  it('answers 429 reach_limit with Retry-After past the configured rate, per app', async () => {
    const t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '3' } });
    try {
      const a = await createImApp(t.app, 'rl', 'one');
      const b = await createImApp(t.app, 'rl', 'two');
      const statuses: number[] = [];
      let limited: { status: number; body: { error: string }; headers: Record<string, unknown> } | undefined;
      for (let i = 0; i < 8; i++) {
        const res = await call(t.app, a.adminToken, 'GET', `${a.base}/moderation/sensitive-words`);
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      expect(statuses).toContain(429);
      expect(limited?.body.error).toBe('reach_limit');
      expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another app has its own budget.
      expect((await call(t.app, b.adminToken, 'GET', `${b.base}/moderation/sensitive-words`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
