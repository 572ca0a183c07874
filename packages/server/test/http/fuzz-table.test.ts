/**
 * The fuzz corpus of the adversarial pass, as one table: text PostgreSQL cannot store (U+0000),
 * text that is not Unicode (an unpaired surrogate), integers beyond 2^53 - 1 and BIGINT, JSON
 * nested 10,000 levels deep, bodies that type coercion used to bend (`{"enabled": null}`,
 * `"to": 5`) and a too-long URL. Every case runs on both engines, over a real socket (so the
 * send-message lane in front of Fastify serves its route) and through inject() (Fastify's own
 * route), and must answer the exact 400 (or 414) of its surface naming the field: never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, send, type RawResponse, type TestAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, SocketClient, userToken, type ImAppHandle } from '../helpers/im.js';

const NUL = '\u0000';
const LONE = '\ud800';
const TWO_63 = '9223372036854775808';
const TWO_53 = '9007199254740992';
/** `[[[...]]]`, `depth` levels. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** An object whose `key` holds arrays nested `depth` levels (the object itself is one more). */
const nestedUnder = (key: string, depth: number, rest: Record<string, unknown> = {}) =>
  `{${Object.entries(rest).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('')}${JSON.stringify(key)}:${nested(depth)}}`;

interface Ctx {
  root: string;
  tenantId: number;
  tenantAdmin: string;
  assoc: TestAssociation;
  im: ImAppHandle;
}

type Surface = 'api' | 'im' | 'send-message';
type Auth = 'root' | 'tenant' | 'im' | 'none' | 'signed';

interface FuzzCase {
  name: string;
  surface: Surface;
  method: 'GET' | 'POST' | 'PUT';
  path: (c: Ctx) => string;
  auth: Auth;
  body?: (c: Ctx) => string;
  status: 400 | 414;
  code: string;
  /** What the error description must contain: the field, and what is wrong with it. */
  detail: string[];
}

const json = (value: unknown) => () => JSON.stringify(value);
const deep = 'nested deeper than 32 levels';
const unsafe = 'must be a number between';

const CASES: FuzzCase[] = [
  // --- /api (customer-service envelope, invalid_request) -----------------------------------
  { name: 'U+0000 in the login username', surface: 'api', method: 'POST', path: () => '/api/login', auth: 'none', body: json({ username: `root${NUL}`, password: 'x' }), status: 400, code: 'invalid_request', detail: ['body.username', 'U+0000'] },
  { name: 'a lone surrogate in the login password', surface: 'api', method: 'POST', path: () => '/api/login', auth: 'none', body: json({ username: 'root', password: `p${LONE}` }), status: 400, code: 'invalid_request', detail: ['body.password', 'unpaired surrogate'] },
  { name: 'U+0000 in a skill-group name', surface: 'api', method: 'POST', path: (c) => `/api/tenants/${c.tenantId}/skill-groups`, auth: 'tenant', body: json({ queue_name: `q${NUL}` }), status: 400, code: 'invalid_request', detail: ['body.queue_name', 'U+0000'] },
  { name: 'U+0000 in an agent nickname', surface: 'api', method: 'POST', path: (c) => `/api/tenants/${c.tenantId}/agents`, auth: 'tenant', body: json({ username: 'n@example.com', password: 'password-1', nickname: `N${NUL}`, role: 'agent' }), status: 400, code: 'invalid_request', detail: ['body.nickname', 'U+0000'] },
  { name: 'U+0000 in a callback URL', surface: 'api', method: 'POST', path: (c) => `/api/tenants/${c.tenantId}/rest/channels`, auth: 'tenant', body: json({ name: 'x', callback_url: `http://example.com/${NUL}` }), status: 400, code: 'invalid_request', detail: ['body.callback_url', 'U+0000'] },
  { name: 'U+0000 (%00) in a path segment', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/rest/channels/%00`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['params.channelId', 'U+0000'] },
  { name: 'U+0000 (%00) in a query value', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/conversations?queue_id=%00`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['querystring.queue_id', 'U+0000'] },
  { name: 'a malformed percent-encoding in a path segment', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/rest/channels/%E0%A4%A`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['not a valid url component'] },
  { name: 'an encoded lone surrogate (%ED%A0%80) in a path segment', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/rest/channels/%ED%A0%80`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['not a valid url component'] },
  { name: 'an encoded lone surrogate (%ED%A0%80) in a query value', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/conversations?queue_id=%ED%A0%80`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['querystring.queue_id'] },
  { name: '2^63 as a tenant id', surface: 'api', method: 'GET', path: () => `/api/tenants/${TWO_63}`, auth: 'root', status: 400, code: 'invalid_request', detail: ['params.tenantId', 'must be an integer from 1 to 9007199254740991'] },
  { name: '2^53 as a channel id', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/rest/channels/${TWO_53}`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['params.channelId', 'must be an integer from 1 to 9007199254740991'] },
  { name: '2^63 as a conversation id', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/conversations/${TWO_63}`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['params.id', 'must be an integer from 1 to 9007199254740991'] },
  { name: '2^63 as a queue id in a query', surface: 'api', method: 'GET', path: (c) => `/api/tenants/${c.tenantId}/conversations?queue_id=${TWO_63}`, auth: 'tenant', status: 400, code: 'invalid_request', detail: ['querystring.queue_id'] },
  { name: '2^63 as an agent id in a body', surface: 'api', method: 'POST', path: (c) => `/api/tenants/${c.tenantId}/conversations/1/transfer`, auth: 'tenant', body: () => `{"agent_id":${TWO_63}}`, status: 400, code: 'invalid_request', detail: ['body.agent_id', unsafe] },
  { name: '10,000 levels of JSON', surface: 'api', method: 'PUT', path: (c) => `/api/tenants/${c.tenantId}/settings`, auth: 'tenant', body: () => nestedUnder('vip_tags', 10_000), status: 400, code: 'invalid_request', detail: ['body.vip_tags[0]', deep] },
  { name: 'a path segment over 100 characters', surface: 'api', method: 'GET', path: () => `/api/tenants/${'1'.repeat(150)}`, auth: 'root', status: 414, code: 'uri_too_long', detail: ['100 characters'] },

  // --- IM (IM envelope, illegal_argument) -------------------------------------------------
  { name: 'U+0000 in a user-token grant', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/token`, auth: 'none', body: json({ grant_type: 'password', username: `alice${NUL}`, password: 'x' }), status: 400, code: 'illegal_argument', detail: ['body.username', 'U+0000'] },
  { name: 'U+0000 in an app-token grant', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/token`, auth: 'none', body: json({ grant_type: 'client_credentials', client_id: `id${NUL}`, client_secret: 's' }), status: 400, code: 'illegal_argument', detail: ['body.client_id', 'U+0000'] },
  { name: 'U+0000 in a user name', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/users`, auth: 'im', body: json([{ username: `u${NUL}`, password: 'pw-123456' }]), status: 400, code: 'illegal_argument', detail: ['body[0].username', 'U+0000'] },
  { name: 'a lone surrogate in a nickname', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/users`, auth: 'im', body: json({ username: 'nick', password: 'pw-123456', nickname: `n${LONE}` }), status: 400, code: 'illegal_argument', detail: ['body.nickname', 'unpaired surrogate'] },
  { name: 'U+0000 in a group name', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/chatgroups`, auth: 'im', body: json({ groupname: `g${NUL}`, public: true, owner: 'alice' }), status: 400, code: 'illegal_argument', detail: ['body.groupname', 'U+0000'] },
  { name: 'U+0000 in a message sender', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/messages/users`, auth: 'im', body: json({ from: `alice${NUL}`, to: ['bob'], type: 'txt', body: { msg: 'hi' } }), status: 400, code: 'illegal_argument', detail: ['body.from', 'U+0000'] },
  { name: 'U+0000 in a callback rule URL', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/callbacks/rules`, auth: 'im', body: json({ name: 'r1', url: `http://example.com/${NUL}` }), status: 400, code: 'illegal_argument', detail: ['body.url', 'U+0000'] },
  { name: 'U+0000 (%00) in a user path', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/users/%00`, auth: 'im', status: 400, code: 'illegal_argument', detail: ['params.username', 'U+0000'] },
  { name: 'a malformed percent-encoding in a path segment', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/users/%E0%A4%A`, auth: 'im', status: 400, code: 'illegal_argument', detail: ['not a valid url component'] },
  { name: '2^63 as a message id', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/users/alice/offline_msg_status/${TWO_63}`, auth: 'im', status: 400, code: 'illegal_argument', detail: ['params.msgId'] },
  { name: '2^63 as a limit', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/callbacks/deliveries/recent?limit=${TWO_63}`, auth: 'im', status: 400, code: 'illegal_argument', detail: ['querystring.limit'] },
  { name: '2^53 as a limit', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/callbacks/deliveries/recent?limit=${TWO_53}`, auth: 'im', status: 400, code: 'illegal_argument', detail: ['querystring.limit'] },
  { name: '2^63 as a token ttl', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/token`, auth: 'none', body: () => `{"grant_type":"password","username":"alice","password":"x","ttl":${TWO_63}}`, status: 400, code: 'illegal_argument', detail: ['body.ttl', unsafe] },
  { name: '10,000 levels of JSON', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/users`, auth: 'im', body: () => nested(10_000), status: 400, code: 'illegal_argument', detail: ['body[0]', deep] },
  { name: '33 levels in a message ext', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/messages/users`, auth: 'im', body: () => nestedUnder('ext', 32, { to: ['alice'], type: 'txt', body: { msg: 'hi' } }), status: 400, code: 'illegal_argument', detail: ['body.ext', deep] },
  { name: '{"enabled": null}', surface: 'im', method: 'PUT', path: (c) => `${c.im.base}/callbacks/service`, auth: 'im', body: json({ enabled: null }), status: 400, code: 'illegal_argument', detail: ['body.enabled', 'boolean'] },
  { name: '"to": 5', surface: 'im', method: 'POST', path: (c) => `${c.im.base}/messages/users`, auth: 'im', body: json({ to: 5, type: 'txt', body: { msg: 'hi' } }), status: 400, code: 'illegal_argument', detail: ['body.to', 'array'] },
  { name: 'a path segment over 100 characters', surface: 'im', method: 'GET', path: (c) => `${c.im.base}/users/${'u'.repeat(150)}`, auth: 'im', status: 414, code: 'uri_too_long', detail: ['100 characters'] },

  // --- The send-message API (lane on sockets, Fastify's route through inject) ---------------
  { name: 'U+0000 in from', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => customerMessage({ from: `c${NUL}` }), status: 400, code: 'invalid_message', detail: ['from', 'U+0000'] },
  { name: 'U+0000 in msg_id', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => customerMessage({ from: 'c1', msg_id: `m${NUL}` }), status: 400, code: 'invalid_message', detail: ['msg_id', 'U+0000'] },
  { name: 'a lone surrogate in a text', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => customerMessage({ from: 'c1', text: `hi ${LONE}` }), status: 400, code: 'invalid_message', detail: ['bodies[0].msg', 'unpaired surrogate'] },
  { name: '2^63 as a timestamp', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => customerMessage({ from: 'c1' }).replace(/"timestamp":\d+/, `"timestamp":${TWO_63}`), status: 400, code: 'invalid_message', detail: ['timestamp', unsafe] },
  { name: '10,000 levels of JSON in ext', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => customerMessage({ from: 'c1' }).replace(/}$/, `,"ext":{"custom":${nested(10_000)}}}`), status: 400, code: 'invalid_message', detail: ['ext.custom[0]', deep] },
  { name: '10,000 levels of JSON as the body', surface: 'send-message', method: 'POST', path: (c) => c.assoc.postMessageUrl, auth: 'signed', body: () => nested(10_000), status: 400, code: 'invalid_message', detail: ['[0][0]', deep] },
  { name: '2^63 as a tenant id', surface: 'send-message', method: 'POST', path: (c) => `/api/tenants/${TWO_63}/rest/channels/${c.assoc.channelId}/messages`, auth: 'signed', body: () => customerMessage({ from: 'c1' }), status: 400, code: 'invalid_request', detail: ['params.tenantId', 'must be an integer from 1 to 9007199254740991'] },
  { name: 'U+0000 (%00) as a channel id', surface: 'send-message', method: 'POST', path: (c) => `/api/tenants/${c.tenantId}/rest/channels/%00/messages`, auth: 'signed', body: () => customerMessage({ from: 'c1' }), status: 400, code: 'invalid_request', detail: ['params.channelId', 'U+0000'] },
];

function headersFor(auth: Auth, c: Ctx): Record<string, string> {
  const bearer = { root: c.root, tenant: c.tenantAdmin, im: c.im.adminToken }[auth as 'root' | 'tenant' | 'im'];
  return { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
}

describe.each(ENGINES)('fuzz table on %s', (engine) => {
  let t: TestApp;
  let c: Ctx;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_IM_RATE_LIMIT: '100000' } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Fuzz');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob');
    c = { root, tenantId: tenant.tenantId, tenantAdmin: tenant.adminToken, assoc, im };
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  const run = (k: FuzzCase, inject: boolean): Promise<RawResponse> => {
    const path = k.path(c);
    if (k.auth === 'signed') return postRaw(t.app, c.assoc, k.body?.(c) ?? '', { url: path, inject, contentType: 'application/json' });
    return send(t.app, k.method, path, headersFor(k.auth, c), k.body?.(c), { inject });
  };

  describe.each([
    ['a socket', false],
    ['inject()', true],
  ] as const)('over %s', (_how, inject) => {
    it.each(CASES.map((k) => [`${k.surface}: ${k.name}`, k] as const))('%s', async (_name, k) => {
      const res = await run(k, inject);
      const code = k.surface === 'im' ? res.body?.error : res.body?.errorCode;
      const description: string = (k.surface === 'im' ? res.body?.error_description : res.body?.errorDescription) ?? '';
      expect({ status: res.status, code }, JSON.stringify(res.body)).toEqual({ status: k.status, code: k.code });
      for (const part of k.detail) expect(description).toContain(part);
    });
  });

  it('answers socket frames with the same faults by an illegal_argument error frame, and keeps the socket open', async () => {
    const { port } = t.app.server.address() as { port: number };
    const socket = await SocketClient.connect(`http://127.0.0.1:${port}`, c.im.base, await userToken(t.app, c.im, 'alice'));
    try {
      const frames = [
        { op: 'send', id: 'f1', chat_type: 'chat', to: `bob${NUL}`, bodies: [{ type: 'txt', msg: 'hi' }] },
        { op: 'send', id: 'f2', chat_type: 'chat', to: 'bob', bodies: [{ type: 'txt', msg: `hi ${LONE}` }] },
      ];
      for (const frame of frames) socket.send(frame);
      socket.send(`{"op":"send","id":"f3","chat_type":"chat","to":"bob","bodies":[{"type":"txt","msg":"hi"}],"ext":{"x":${nested(1000)}}}`);
      const errors = await socket.waitFrames('error', 3);
      expect(errors.map((e) => [e.error, e.error_description])).toEqual([
        ['illegal_argument', 'frame.to contains U+0000'],
        ['illegal_argument', 'frame.bodies[0].msg contains an unpaired surrogate (not UTF-16 text)'],
        ['illegal_argument', expect.stringContaining('frame.ext.x[0]')],
      ]);
      expect(socket.closed).toBe(false);
    } finally {
      socket.ws.close();
    }
  });

  it('accepts what the contract allows at the bounds: 32 levels, 2^53 - 1, query strings still coerced', async () => {
    const at32 = customerMessage({ from: 'bound', msg_id: 'bound-1' }).replace(/}$/, `,"ext":{"custom":${nested(30)}}}`);
    expect((await postRaw(t.app, c.assoc, at32)).status).toBe(200);
    const notFound = await send(t.app, 'GET', `/api/tenants/${c.tenantId}/rest/channels/9007199254740991`, headersFor('tenant', c));
    expect(notFound.status).toBe(404);
    const limited = await send(t.app, 'GET', `${c.im.base}/callbacks/deliveries/recent?limit=5`, headersFor('im', c));
    expect(limited.status).toBe(200);
    const switched = await send(t.app, 'PUT', `${c.im.base}/callbacks/service`, headersFor('im', c), JSON.stringify({ enabled: false }));
    expect(switched.status).toBe(200);
    expect(switched.body.data.enabled).toBe(false);
  });
});
