/**
 * The send-message lane (src/http/send-message/lane.ts) serves the route on real sockets in front
 * of Fastify. These tests compare it with Fastify's own route for the same request, over a socket
 * (the path with a percent-encoded id, which the lane leaves to Fastify) and through inject():
 * same status, envelope and headers (request id, security headers, Retry-After, Connection), one
 * rate budget; and the socket's own cases (chunked bodies, a client that leaves, what it leaves
 * to Fastify). The pipeline's steps on both transports are in pipeline.test.ts; the functional
 * rules of the API run over both in channel/ingest.test.ts.
 */
import net from 'node:net';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, type PostOptions, type RawResponse, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';

/** Sends one request through inject() (Fastify's route) even though the app listens. */
const viaInject = (t: TestApp, assoc: TestAssociation, body: string, options: PostOptions = {}) => postRaw(t.app, assoc, body, { ...options, inject: true });

/** A raw HTTP/1.1 exchange on a new socket: what is written, and everything read until the server closes or `until` holds. */
function exchange(port: number, write: (socket: net.Socket) => void, until: (text: string) => boolean = () => false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => write(socket));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (until(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** The headers a customer's server sends with `body`. */
const signedHeaders = (assoc: TestAssociation, body: string): Record<string, string> => {
  const signature = signSendMessage(assoc.clientSecret, { method: 'POST', path: assoc.postMessageUrl, expires: -1, body });
  return { authorization: sendMessageAuthorization(assoc.clientId, signature), 'x-auth-expires': '-1', 'content-type': 'application/json' };
};

describe('send-message lane over sockets', () => {
  let t: TestApp;
  let assoc: TestAssociation;
  let other: TestAssociation;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_CHANNEL_RATE_LIMIT: '5' } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Lane');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    other = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/other');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => t?.close());

  const countMessages = async (channelId: number) =>
    (await t.app.parley.storage.db.selectFrom('channel_messages').select('id').where('channel_id', '=', channelId).execute()).length;
  /** A new window for the association budgets (the limiter runs on the app's clock). */
  const nextWindow = () => (t.clock as FakeClock).advance(1000);

  /** The same path with the tenant id's first digit percent-encoded: the lane leaves it to Fastify's route. */
  const toFastify = (url: string) => url.replace(/\/tenants\/(\d)/, (_m, d: string) => `/tenants/%3${d}`);
  /** What must be the same whichever way a request went: status, envelope and the headers the pipeline and the route set. */
  const comparable = (r: RawResponse, headers: readonly string[]) => ({
    status: r.status,
    body: r.body?.entity ? { ...r.body, entity: { ...r.body.entity, msg_id: 'each its own' } } : r.body,
    headers: Object.fromEntries(headers.map((name) => [name, r.headers[name]])),
  });
  /** The headers every answer of the route has, and those only some have; inject() shows no connection-level ones. */
  const ROUTE_HEADERS = ['content-type', 'content-length', 'x-request-id', 'content-security-policy', 'x-content-type-options', 'retry-after'];

  it.each<[string, (tag: string) => [string, PostOptions]]>([
    ['accepted', (tag) => [customerMessage({ from: 'p-1', msg_id: `parity-${tag}` }), {}]],
    ['no Authorization', () => [customerMessage({ from: 'p-2' }), { authorization: null }]],
    ['X-Auth-Expires not a number', () => [customerMessage({ from: 'p-3' }), { expires: 'soon' }]],
    ['wrong secret', () => [customerMessage({ from: 'p-4' }), { secret: 'f'.repeat(32) }]],
    ['an expired signature', () => [customerMessage({ from: 'p-9' }), { expires: 1_000 }]],
    ['text/plain', () => [customerMessage({ from: 'p-5' }), { contentType: 'text/plain' }]],
    ['malformed JSON', () => ['{"bodies": [', {}]],
    ['a message without bodies', () => [JSON.stringify({ from: 'p-6', origin_type: 'rest', timestamp: 1 }), {}]],
    ['an unknown tenant', () => [customerMessage({ from: 'p-7' }), { url: `/api/tenants/999999/rest/channels/${assoc.channelId}/messages` }]],
    ['a body over 64 KiB', () => [customerMessage({ from: 'p-8', text: 'x'.repeat(70 * 1024) }), {}]],
  ])('answers like the Fastify route: %s', async (name, make) => {
    const requestId = `parity-${name.replace(/\W/g, '-')}`;
    const post = (tag: string, options: (o: PostOptions) => PostOptions) => {
      nextWindow();
      const [body, made] = make(tag);
      return postRaw(t.app, assoc, body, options({ ...made, headers: { 'x-request-id': requestId } }));
    };
    const lane = await post('a', (o) => o);
    const fastify = await post('b', (o) => ({ ...o, url: toFastify(o.url ?? assoc.postMessageUrl) }));
    const injected = await post('c', (o) => ({ ...o, inject: true }));
    expect(lane.headers['x-request-id']).toBe(requestId);
    if (lane.status !== 200) expect(lane.body.requestId).toBe(requestId);
    // Over sockets both transports write every header alike, connection-level ones too (Connection: close after a 413).
    const headerNames = (r: RawResponse) => Object.keys(r.headers).filter((h) => h !== 'date').sort();
    expect(headerNames(lane)).toEqual(headerNames(fastify));
    expect(comparable(lane, headerNames(lane))).toEqual(comparable(fastify, headerNames(fastify)));
    expect(comparable(lane, ROUTE_HEADERS)).toEqual(comparable(injected, ROUTE_HEADERS));
  });

  it('shares one budget per association with the route, and opens a new window when the clock moves on', async () => {
    nextWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await postRaw(t.app, assoc, customerMessage({ from: 'rl', msg_id: `rl-s-${i}` }))).status);
    for (let i = 0; i < 3; i++) statuses.push((await viaInject(t, assoc, customerMessage({ from: 'rl', msg_id: `rl-i-${i}` }))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await postRaw(t.app, assoc, customerMessage({ from: 'rl', msg_id: 'rl-s-9' }));
    expect(limited.status).toBe(429);
    expect(limited.body.errorCode).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await postRaw(t.app, other, customerMessage({ from: 'rl-other' }))).status).toBe(200);
    nextWindow();
    expect((await postRaw(t.app, assoc, customerMessage({ from: 'rl', msg_id: 'rl-s-10' }))).status).toBe(200);
  });

  it('refuses a chunked body past 64 KiB with 413, closes the connection, and stores nothing', async () => {
    nextWindow();
    const before = await countMessages(assoc.channelId);
    const body = customerMessage({ from: 'big', text: 'y'.repeat(80 * 1024) });
    const headers = signedHeaders(assoc, body);
    const head = Object.entries({ ...headers, 'transfer-encoding': 'chunked', host: 'x' })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const text = await exchange(port, (socket) => {
      socket.write(`POST ${assoc.postMessageUrl} HTTP/1.1\r\n${head}\r\n`);
      for (let i = 0; i < body.length; i += 16 * 1024) {
        const part = body.slice(i, i + 16 * 1024);
        socket.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
      }
      socket.write('0\r\n\r\n');
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"errorCode":"payload_too_large"');
    expect(await countMessages(assoc.channelId)).toBe(before);
  });

  it('reads a chunked body under the limit in whole and stores the message', async () => {
    nextWindow();
    const body = customerMessage({ from: 'chunked', msg_id: 'chunked-1', text: 'z'.repeat(3000) });
    const head = Object.entries({ ...signedHeaders(assoc, body), 'transfer-encoding': 'chunked', host: 'x', connection: 'close' })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const text = await exchange(port, (socket) => {
      socket.write(`POST ${assoc.postMessageUrl} HTTP/1.1\r\n${head}\r\n`);
      for (let i = 0; i < body.length; i += 1000) {
        const part = body.slice(i, i + 1000);
        socket.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
      }
      socket.write('0\r\n\r\n');
    });
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    const stored = await t.app.parley.storage.db.selectFrom('channel_messages').select('bodies').where('msg_id', '=', 'chunked-1').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.bodies)).toEqual([{ type: 'txt', msg: 'z'.repeat(3000) }]);
  });

  it('keeps serving after a client leaves in the middle of its body', async () => {
    nextWindow();
    const body = customerMessage({ from: 'gone' });
    const headers = signedHeaders(assoc, body);
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`POST ${assoc.postMessageUrl} HTTP/1.1\r\nhost: x\r\nauthorization: ${headers.authorization}\r\nx-auth-expires: -1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
    });
    expect((await postRaw(t.app, assoc, customerMessage({ from: 'after-gone' }))).status).toBe(200);
  });

  it('leaves other methods and undecoded ids on the path to Fastify', async () => {
    nextWindow();
    const get = await fetch(`http://127.0.0.1:${port}${assoc.postMessageUrl}`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as { errorCode: string }).errorCode).toBe('method_not_allowed');
    // `%31` is 1 once decoded: Fastify's route serves it; the signature covers the path as sent.
    const url = assoc.postMessageUrl.replace(`/tenants/${assoc.tenantId}/`, `/tenants/${encodeURIComponent(String(assoc.tenantId)).replace(/\d/, (d) => `%3${d}`)}/`);
    expect(url).not.toBe(assoc.postMessageUrl);
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'encoded' }), { url });
    expect(res.status).toBe(200);
  });
});
