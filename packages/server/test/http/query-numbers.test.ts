/**
 * Listing parameters, on both engines: a `limit` the schema's coercion would read as a number that
 * is not finite ("Infinity", "-Infinity", "1e400") is a 400 naming the field on the IM user, group
 * and room lists and on the conversation list, never a 500; a cursor that decodes to text no input
 * may carry (U+0000) is a 400 like any other bad cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTestApp, login, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

const NOT_FINITE = ['Infinity', '-Infinity', '1e400'];
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe.each(ENGINES)('listing parameters on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let admin: string;
  let tenantId: number;

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'ann', 'bob');
    admin = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await call(t.app, admin, 'POST', '/api/tenants', { name: 'Numbers', edition: 'flagship', admin: { username: 'numbers-admin@example.com', password: 'numbers-pw-1', nickname: 'N' } });
    tenantId = tenant.body.entity.tenantId;
  });
  afterAll(async () => t?.close());

  it('answers 400 naming limit for a limit that is not a finite number, on the IM lists', async () => {
    for (const list of ['/users', '/chatgroups', '/chatrooms']) {
      for (const limit of NOT_FINITE) {
        const res = await call(t.app, im.adminToken, 'GET', `${im.base}${list}?limit=${limit}`);
        expect([list, limit, res.status, res.body.error]).toEqual([list, limit, 400, 'illegal_argument']);
        expect(res.body.error_description).toContain('querystring.limit');
      }
    }
  });

  it('answers 400 naming limit on the conversation list', async () => {
    for (const limit of NOT_FINITE) {
      const res = await call(t.app, admin, 'GET', `/api/tenants/${tenantId}/conversations?limit=${limit}`);
      expect([limit, res.status, res.body.errorCode]).toEqual([limit, 400, 'invalid_request']);
      expect(res.body.errorDescription).toContain('querystring.limit');
    }
  });

  it('answers 400 for a cursor that decodes to a NUL character or an over-long id, and still pages with a real one', async () => {
    for (const cursor of [cursorOf(['users', 1, '\u0000']), cursorOf(['users', 1, 'a\u0000b']), cursorOf(['users', 1, 'x'.repeat(65)])]) {
      const res = await call(t.app, im.adminToken, 'GET', `${im.base}/users?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'illegal_argument' });
    }
    const first = await call(t.app, im.adminToken, 'GET', `${im.base}/users?limit=1`);
    const next = await call(t.app, im.adminToken, 'GET', `${im.base}/users?limit=1&cursor=${first.body.cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.entities[0].username).toBe('bob');
  });
});
