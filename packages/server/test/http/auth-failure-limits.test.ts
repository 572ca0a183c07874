/**
 * Failed authentications count per client IP and target (IM app, REST association), never in the
 * target's own limit: a stranger flooding wrong credentials gets 429 itself, while the real
 * client, from another IP, keeps its whole budget. Through inject() (remoteAddress) and, for the
 * send-message lane, over real sockets from two loopback addresses.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, type TestAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, listen } from '../helpers/im.js';
import { clientAddress, trustProxy } from '../../src/http/client-address.js';

const FAILURES = 10;
const STRANGER = '203.0.113.9';
const CLIENT = '198.51.100.7';

const ENV = {
  PARLEY_AUTH_FAILURE_LIMIT: String(FAILURES),
  PARLEY_IM_RATE_LIMIT: '20',
  PARLEY_CHANNEL_RATE_LIMIT: '20',
  PARLEY_API_RATE_LIMIT: '100000',
};

type Mode = 'memory' | 'redis';
const MODES: Array<[string, Mode]> = ENGINES.map((engine) => [engine, 'memory'] as [string, Mode]).concat([['sqlite', 'redis']]);

async function start(engine: string, mode: Mode): Promise<TestApp> {
  const redis: Record<string, string> = mode === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379', PARLEY_REDIS_PREFIX: `parley-test-${randomBytes(4).toString('hex')}:` } : {};
  return createTestApp(engine as 'sqlite' | 'postgres', { env: { ...ENV, ...redis } });
}

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

async function imToken(app: FastifyInstance, base: string, ip: string, body: Record<string, unknown>): Promise<Answer & { token?: string }> {
  const res = await app.inject({ method: 'POST', url: `${base}/token`, payload: body, remoteAddress: ip });
  const json = res.json();
  return { status: res.statusCode, code: json.error, retryAfter: res.headers['retry-after'] as string | undefined, token: json.access_token };
}

async function imGet(app: FastifyInstance, url: string, ip: string, token: string): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` }, remoteAddress: ip });
  return { status: res.statusCode, code: res.json().error, retryAfter: res.headers['retry-after'] as string | undefined };
}

function signed(assoc: TestAssociation, body: string, secret = assoc.clientSecret, path = assoc.postMessageUrl): Record<string, string> {
  const signature = signSendMessage(secret, { method: 'POST', path, expires: -1, body });
  return { 'content-type': 'application/json', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(assoc.clientId, signature) };
}

async function injectPost(app: FastifyInstance, assoc: TestAssociation, ip: string, body: string, secret?: string): Promise<Answer> {
  const res = await app.inject({ method: 'POST', url: assoc.postMessageUrl, headers: signed(assoc, body, secret), payload: body, remoteAddress: ip });
  return { status: res.statusCode, code: res.json().errorCode, retryAfter: res.headers['retry-after'] as string | undefined };
}

/**
 * A real request to the lane from `localAddress` (any 127.x address reaches a server on 127.0.0.1);
 * to Fastify's route instead with `path` (`fastifyPath`).
 */
function socketPost(port: number, localAddress: string, assoc: TestAssociation, body: string, secret?: string, forwardedFor?: string, path = assoc.postMessageUrl): Promise<Answer> {
  const headers = { ...signed(assoc, body, secret, path), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, localAddress, method: 'POST', path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).errorCode, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The association's URL with the tenant id's first digit percent-encoded: the lane leaves it to Fastify's route. */
const fastifyPath = (assoc: TestAssociation): string =>
  assoc.postMessageUrl.replace(`/tenants/${assoc.tenantId}/`, `/tenants/${String(assoc.tenantId).replace(/\d/, (d) => `%3${d}`)}/`);

function expectFloodRefused(answers: Answer[], failure: { status: number; code: string }, limited: string): void {
  expect(answers.slice(0, FAILURES).every((a) => a.status === failure.status && a.code === failure.code)).toBe(true);
  const rest = answers.slice(FAILURES);
  expect(rest.every((a) => a.status === 429 && a.code === limited)).toBe(true);
  expect(Number(rest[0]?.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe.each(MODES)('unauthenticated failures on %s (%s windows)', (engine, mode) => {
  it('IM: a flood of wrong credentials and tokens is refused by IP and never uses the app limit', async () => {
    const t = await start(engine, mode);
    try {
      const im = await createImApp(t.app, 'flood', `app${mode}`);
      const app = await t.app.parley.im.apps.requireApp('flood', `app${mode}`);
      const wrong = { grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'not-the-secret' };
      const flood: Answer[] = [];
      for (let i = 0; i < 40; i++) flood.push(await imToken(t.app, im.base, STRANGER, wrong));
      expectFloodRefused(flood, { status: 400, code: 'invalid_grant' }, 'reach_limit');

      // Bad bearer tokens from another stranger count the same way.
      const badTokens: Answer[] = [];
      for (let i = 0; i < 25; i++) badTokens.push(await imGet(t.app, `${im.base}/moderation/sensitive-words`, '203.0.113.10', `YWMt-bogus-${i}`));
      expectFloodRefused(badTokens, { status: 401, code: 'auth_bad_access_token' }, 'reach_limit');

      // The real admin, from its own IP, has its whole budget (20 a second) left.
      const ok: Answer[] = [];
      for (let i = 0; i < 15; i++) ok.push(await imGet(t.app, `${im.base}/moderation/sensitive-words`, CLIENT, im.adminToken));
      expect(ok.map((a) => a.status)).toEqual(Array(15).fill(200));
      // A valid token does not help the flooding IP: it is refused before the token is looked at.
      expect((await imGet(t.app, `${im.base}/moderation/sensitive-words`, STRANGER, im.adminToken)).status).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('send-message: bad signatures are refused by IP and never use the association limit', async () => {
    const t = await start(engine, mode);
    try {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, `Flood${mode}`);
      const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      const body = customerMessage({ from: 'c-flood' });
      const flood: Answer[] = [];
      for (let i = 0; i < 40; i++) flood.push(await injectPost(t.app, assoc, STRANGER, body, 'f'.repeat(32)));
      expectFloodRefused(flood, { status: 401, code: 'invalid_signature' }, 'rate_limited');

      const real: Answer[] = [];
      for (let i = 0; i < 15; i++) real.push(await injectPost(t.app, assoc, CLIENT, customerMessage({ from: 'c-real', msg_id: `real-${i}` })));
      expect(real.map((a) => a.status)).toEqual(Array(15).fill(200));
      if (mode === 'memory') {
        // The association's own limit still holds for authenticated requests (20 in the window).
        const more: Answer[] = [];
        for (let i = 0; i < 10; i++) more.push(await injectPost(t.app, assoc, CLIENT, customerMessage({ from: 'c-real', msg_id: `more-${i}` })));
        expect(more.filter((a) => a.status === 200)).toHaveLength(5);
        expect(more.slice(5).every((a) => a.status === 429 && a.code === 'rate_limited')).toBe(true);
      }
    } finally {
      await t.close();
    }
  });
});

describe.each(ENGINES)('the send-message lane on %s', (engine) => {
  it('counts failures by the socket address: the flooding address gets 429, another one is served', async () => {
    const t = await start(engine, 'memory');
    try {
      await listen(t.app);
      const { port } = t.app.server.address() as { port: number };
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'LaneFlood');
      const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      const body = customerMessage({ from: 'c-lane' });
      const flood: Answer[] = [];
      for (let i = 0; i < 30; i++) flood.push(await socketPost(port, '127.0.0.2', assoc, body, 'f'.repeat(32)));
      expectFloodRefused(flood, { status: 401, code: 'invalid_signature' }, 'rate_limited');
      const real: Answer[] = [];
      for (let i = 0; i < 15; i++) real.push(await socketPost(port, '127.0.0.3', assoc, customerMessage({ from: 'c-lane', msg_id: `lane-${i}` })));
      expect(real.map((a) => a.status)).toEqual(Array(15).fill(200));
    } finally {
      await t.close();
    }
  });
});

describe('behind a load balancer (PARLEY_TRUST_PROXY)', () => {
  it('reads the client from X-Forwarded-For only when the peer is a trusted proxy', () => {
    const trusted = trustProxy(['127.0.0.1', '10.0.0.0/8']);
    expect(clientAddress('127.0.0.1', '203.0.113.9', trusted)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.9, 10.1.2.3', trusted)).toBe('203.0.113.9');
    expect(clientAddress('198.51.100.1', '203.0.113.9', trusted)).toBe('198.51.100.1');
    expect(clientAddress('127.0.0.1', undefined, trusted)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '203.0.113.9', undefined)).toBe('127.0.0.1');
  });

  it('reads one client address on the lane and on Fastify: a failure counted on either counts on both', async () => {
    const t = await createTestApp('sqlite', { env: { ...ENV, PARLEY_TRUST_PROXY: '127.0.0.1' } });
    try {
      await listen(t.app);
      const { port } = t.app.server.address() as { port: number };
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'OneAddress');
      const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      const lane = (peer: string, forwardedFor: string | undefined, secret?: string) =>
        socketPost(port, peer, assoc, customerMessage({ from: 'c-one' }), secret, forwardedFor);
      const fastify = (peer: string, forwardedFor: string | undefined, secret?: string) =>
        socketPost(port, peer, assoc, customerMessage({ from: 'c-one' }), secret, forwardedFor, fastifyPath(assoc));
      const wrong = 'f'.repeat(32);
      // [who, the socket's peer, X-Forwarded-For]: a direct client (its forwarded header is not
      // believed), and a client behind the trusted proxy.
      const clients: Array<[string, string, string | undefined]> = [
        ['direct', '127.0.0.5', STRANGER],
        ['through the proxy', '127.0.0.1', STRANGER],
      ];
      for (const [who, peer, forwardedFor] of clients) {
        const failed: number[] = [];
        for (let i = 0; i < FAILURES / 2; i++) {
          failed.push((await lane(peer, forwardedFor, wrong)).status, (await fastify(peer, forwardedFor, wrong)).status);
        }
        expect(failed, who).toEqual(Array(FAILURES).fill(401));
        for (const transport of [lane, fastify]) {
          const refused = await transport(peer, forwardedFor);
          expect([who, refused.status, refused.code]).toEqual([who, 429, 'rate_limited']);
        }
      }
      // The same forwarded address from a peer that is not a proxy is that peer, and another client behind the proxy is itself.
      for (const transport of [lane, fastify]) {
        expect((await transport('127.0.0.6', STRANGER)).status).toBe(200);
        expect((await transport('127.0.0.1', CLIENT)).status).toBe(200);
      }
    } finally {
      await t.close();
    }
  });

  it('counts failures per forwarded client on the lane and on Fastify routes, so one stranger does not block everyone', async () => {
    const t = await createTestApp('sqlite', { env: { ...ENV, PARLEY_TRUST_PROXY: '127.0.0.1' } });
    try {
      await listen(t.app);
      const { port } = t.app.server.address() as { port: number };
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'Proxied');
      const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      const body = customerMessage({ from: 'c-proxied' });
      const flood: Answer[] = [];
      for (let i = 0; i < 15; i++) flood.push(await socketPost(port, '127.0.0.1', assoc, body, 'f'.repeat(32), STRANGER));
      expectFloodRefused(flood, { status: 401, code: 'invalid_signature' }, 'rate_limited');
      expect((await socketPost(port, '127.0.0.1', assoc, customerMessage({ from: 'c-proxied', msg_id: 'p-1' }), undefined, CLIENT)).status).toBe(200);

      const im = await createImApp(t.app, 'proxied', 'app');
      const wrong = { grant_type: 'client_credentials', client_id: im.clientId, client_secret: 'nope' };
      const tokenFlood: Answer[] = [];
      for (let i = 0; i < 15; i++) {
        const res = await t.app.inject({ method: 'POST', url: `${im.base}/token`, payload: wrong, headers: { 'x-forwarded-for': STRANGER } });
        tokenFlood.push({ status: res.statusCode, code: res.json().error, retryAfter: res.headers['retry-after'] as string | undefined });
      }
      expectFloodRefused(tokenFlood, { status: 400, code: 'invalid_grant' }, 'reach_limit');
      const right = { grant_type: 'client_credentials', client_id: im.clientId, client_secret: im.clientSecret };
      const ok = await t.app.inject({ method: 'POST', url: `${im.base}/token`, payload: right, headers: { 'x-forwarded-for': CLIENT } });
      expect(ok.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
