/**
 * Schema validation answers one message naming the field and what is wrong with it, in the
 * surface's envelope, never Ajv's dump of a union's members. Validation runs before storage is
 * touched, so one engine serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';

let t: TestApp;
let root: string;
let im: ImAppHandle;

beforeAll(async () => {
  t = await createTestApp('sqlite', { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_IM_RATE_LIMIT: '100000' } });
  root = await login(t.app, ADMIN.username, ADMIN.password);
  im = await createImApp(t.app);
});
afterAll(async () => t?.close());

const admin = { username: 'ada@acme.example', password: 'long enough pw', nickname: 'Ada' };
const tenant = { name: 'Acme', edition: 'flagship', admin };
const reply = (bodies: unknown) => ({ bodies });

type Case = [name: string, method: 'GET' | 'POST' | 'PUT', url: string, body: unknown, message: string];

const API_CASES: Case[] = [
  ['a missing field', 'POST', '/api/login', {}, 'body.username is required'],
  ['a number for a string', 'POST', '/api/login', { username: 5, password: 'x' }, 'body.username must be a non-empty string'],
  ['a value outside a list', 'POST', '/api/tenants', { ...tenant, edition: 'gold' }, 'body.edition must be one of flagship, standard'],
  ['a nested string too short', 'POST', '/api/tenants', { ...tenant, admin: { ...admin, password: 'short' } }, 'body.admin.password must be a string of at least 8 characters'],
  ['a field nobody knows', 'POST', '/api/tenants', { ...tenant, color: 'red' }, 'body.color is not a known field'],
  ['an unknown body type', 'POST', '/api/tenants/1/conversations/1/messages', reply([{ type: 'video', url: 'x' }]), 'body.bodies[0].type must be one of txt, img, audio, file'],
  ['no bodies', 'POST', '/api/tenants/1/conversations/1/messages', reply([]), 'body.bodies must be a non-empty array'],
  ['an empty file name in a body', 'POST', '/api/tenants/1/conversations/1/messages', reply([{ type: 'img', url: 'u', filename: '' }]), 'body.bodies[0].filename must be a non-empty string'],
  ['an unknown field in a body', 'POST', '/api/tenants/1/conversations/1/messages', reply([{ type: 'txt', msg: 'hi', extra: 1 }]), 'body.bodies[0].extra is not a known field'],
  ['a query value outside a list', 'GET', '/api/tenants/1/conversations?state=open', undefined, 'querystring.state must be one of waiting, processing, closed'],
  ['a path id below 1', 'GET', '/api/tenants/0', undefined, 'params.tenantId must be an integer from 1 to 9007199254740991'],
];

const IM_CASES: Case[] = [
  ['a missing field', 'POST', '/chatrooms', { name: 'r', owner: 'alice' }, 'body.description is required'],
  ['an unknown grant type', 'POST', '/token', { grant_type: 'magic' }, 'body.grant_type must be one of client_credentials, password'],
  ['a field missing in a batch', 'POST', '/users', [{ username: 'a' }], 'body[0].password is required'],
  ['a string for a boolean', 'PUT', '/callbacks/service', { enabled: 'yes' }, 'body.enabled must be a boolean (true or false)'],
];

describe('readable validation errors', () => {
  it.each(API_CASES)('/api: %s', async (_name, method, url, body, message) => {
    const res = await call(t.app, root, method, url, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'FAIL', errorCode: 'invalid_request', errorDescription: `Invalid request: ${message}` });
  });

  it.each(IM_CASES)('IM: %s', async (_name, method, url, body, message) => {
    const res = await call(t.app, im.adminToken, method, `${im.base}${url}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'illegal_argument', error_description: message });
  });
});
