/**
 * CORS on the IM REST surface over real HTTP (contract 6.8): preflights answered for the app's
 * allowed origins with the headers the SDK sends, `Access-Control-Allow-Origin` on answers (errors
 * included), never credentials; `/api` and the console answer no CORS; a bodiless DELETE labelled
 * JSON (as the SDK sends it) is no `invalid_json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, userToken, type ImAppHandle } from '../helpers/im.js';

const ORIGIN = 'https://chat.example.com';

describe.each(ENGINES)('IM CORS on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'ann', 'ben');
    url = await listen(t.app);
  });
  afterAll(async () => t?.close());

  const preflight = (path: string, origin = ORIGIN, method = 'PUT') =>
    fetch(`${url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,restrict-access' } });

  it('answers preflights of IM routes and the token endpoint for every origin by default, never with credentials', async () => {
    for (const path of [`${im.base}/token`, `${im.base}/metadata/user/ann`, `${im.base}/chatfiles`, `${im.base}/users/ann/contacts/users/ben`]) {
      const res = await preflight(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE');
      expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, restrict-access');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const token = await fetch(`${url}${im.base}/token`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'ann', password: 'pw-123456' }),
    });
    expect(token.status).toBe(200);
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
    expect(token.headers.get('access-control-allow-credentials')).toBeNull();
    // Errors carry it too, so the browser shows the app its 401.
    const refused = await fetch(`${url}${im.base}/users/ann`, { headers: { origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('limits answers to the allowed origins once the app sets them', async () => {
    const set = await call(t.app, im.adminToken, 'PUT', `${im.base}/allowed_origins`, { allowed_origins: ['HTTPS://Chat.Example.com/', ORIGIN] });
    expect(set.status).toBe(200);
    expect(set.body.data.allowed_origins).toEqual([ORIGIN]);
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/allowed_origins`)).body.data.allowed_origins).toEqual([ORIGIN]);
    try {
      const ok = await preflight(`${im.base}/users/ann`, ORIGIN, 'GET');
      expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(ok.headers.get('vary')).toContain('Origin');
      const other = await preflight(`${im.base}/users/ann`, 'https://evil.example', 'GET');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(other.headers.get('access-control-allow-methods')).toBeNull();
      const ann = await userToken(t.app, im, 'ann');
      const read = await fetch(`${url}${im.base}/users/ann`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${ann}` } });
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await call(t.app, im.adminToken, 'PUT', `${im.base}/allowed_origins`, { allowed_origins: ['*'] });
    }
  });

  it('refuses bad origin lists naming the entry, and a user token may not change them', async () => {
    for (const entry of ['chat.example.com', 'ftp://x.example', 'https://x.example/path', 'https://u:p@x.example']) {
      const res = await call(t.app, im.adminToken, 'PUT', `${im.base}/allowed_origins`, { allowed_origins: ['*', entry] });
      expect(res.status, entry).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain('allowed_origins[1]');
    }
    const ann = await userToken(t.app, im, 'ann');
    expect((await call(t.app, ann, 'PUT', `${im.base}/allowed_origins`, { allowed_origins: ['*'] })).status).toBe(403);
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/allowed_origins`)).body.data.allowed_origins).toEqual(['*']);
  });

  it('/api and the console answer no CORS, to a preflight or a request', async () => {
    for (const path of ['/api/login', '/api/tenants/1/users', '/console', '/console/assets/x.js']) {
      const res = await preflight(path, ORIGIN, 'POST');
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(res.status, path).not.toBe(204);
    }
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json' }, body: '{}' });
    expect(login.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes a bodiless DELETE labelled application/json (as the SDK sends it) without invalid_json', async () => {
    await createUsers(t.app, im, 'gone');
    const res = await fetch(`${url}${im.base}/users/gone`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${im.adminToken}`, 'content-type': 'application/json', 'content-length': '0', origin: ORIGIN },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const get = await fetch(`${url}${im.base}/users/ann`, { headers: { authorization: `Bearer ${im.adminToken}`, 'content-type': 'application/json' } });
    expect(get.status).toBe(200);
    // Malformed JSON is still refused.
    const bad = await fetch(`${url}${im.base}/users`, { method: 'POST', headers: { authorization: `Bearer ${im.adminToken}`, 'content-type': 'application/json' }, body: '{"username":' });
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_json');
  });
});
