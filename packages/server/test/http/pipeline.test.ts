/**
 * The HTTP pipeline's steps (src/http/pipeline.ts) on both transports of one route, over real
 * sockets: the send-message lane in front of Fastify (the path with decimal ids) and Fastify's
 * own route (the same path with a percent-encoded id, which the lane leaves to Fastify). Each step
 * must show the same on both: the request id, the security headers, the metrics under the route
 * pattern, the access log and the failure line, and the 503 while the app closes.
 */
import net from 'node:net';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, type TestAssociation } from '../helpers/channel.js';

const ROUTE = '/api/tenants/:tenantId/rest/channels/:channelId/messages';
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The association's URL with its tenant id's first digit percent-encoded: Fastify serves it, not the lane. */
const encoded = (assoc: TestAssociation): string =>
  assoc.postMessageUrl.replace(`/tenants/${assoc.tenantId}/`, `/tenants/${String(assoc.tenantId).replace(/\d/, (d) => `%3${d}`)}/`);

const TRANSPORTS: ReadonlyArray<readonly [string, (assoc: TestAssociation) => string]> = [
  ['the lane', (assoc) => assoc.postMessageUrl],
  ['Fastify', encoded],
];

type LogLine = Record<string, unknown> & { msg?: string; reqId?: string };

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('the HTTP pipeline on both transports', () => {
  let t: TestApp;
  let assoc: TestAssociation;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      env: { PARLEY_API_RATE_LIMIT: '100000', LOG_LEVEL: 'info' },
      deps: { logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
    });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Pipeline');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  const metric = async (status: number) => {
    const text = (await t.app.inject('/metrics')).body;
    const line = text.split('\n').find((l) => l.startsWith(`parley_http_requests_total{method="POST",route="${ROUTE}",status="${status}"}`));
    return Number(line?.split(' ').pop() ?? 0);
  };

  it('sends the two URLs to different transports', () => {
    expect(encoded(assoc)).not.toBe(assoc.postMessageUrl);
  });

  it.each(TRANSPORTS)('%s: echoes a valid x-request-id in the header and the envelope, and replaces an invalid one', async (_name, url) => {
    const given = await postRaw(t.app, assoc, customerMessage({ from: 'rid' }), { url: url(assoc), authorization: null, headers: { 'x-request-id': 'trace-42.a' } });
    expect(given.headers['x-request-id']).toBe('trace-42.a');
    expect(given.body.requestId).toBe('trace-42.a');
    const invalid = await postRaw(t.app, assoc, customerMessage({ from: 'rid' }), { url: url(assoc), authorization: null, headers: { 'x-request-id': 'not valid!' } });
    expect(invalid.headers['x-request-id']).not.toBe('not valid!');
    expect(invalid.body.requestId).toBe(invalid.headers['x-request-id']);
  });

  it.each(TRANSPORTS)('%s: gives answers and errors the data policy and nosniff', async (_name, url) => {
    for (const options of [{}, { authorization: null }]) {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'headers' }), { url: url(assoc), ...options });
      expect(res.headers['content-security-policy']).toBe(DATA_POLICY);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it.each(TRANSPORTS)('%s: counts its answers in the HTTP metrics under the route pattern', async (_name, url) => {
    const [ok, unauthorized] = [await metric(200), await metric(401)];
    expect((await postRaw(t.app, assoc, customerMessage({ from: 'm-1' }), { url: url(assoc) })).status).toBe(200);
    expect((await postRaw(t.app, assoc, customerMessage({ from: 'm-2' }), { url: url(assoc), authorization: null })).status).toBe(401);
    expect(await metric(200)).toBe(ok + 1);
    expect(await metric(401)).toBe(unauthorized + 1);
  });

  it.each(TRANSPORTS)('%s: logs the request in, its failure and its answer under the request id', async (name, url) => {
    const id = `logs-${name.replace(/\W/g, '')}`;
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'logs' }), { url: url(assoc), authorization: null, headers: { 'x-request-id': id } });
    expect(res.status).toBe(401);
    const mine = () => lines.filter((l) => l.reqId === id);
    await until(() => mine().some((l) => l.msg === 'request completed'), 'the access log line');
    const [incoming, failed, completed] = mine();
    expect(mine()).toHaveLength(3);
    expect(incoming).toMatchObject({ msg: 'incoming request', level: 30, req: { method: 'POST', url: url(assoc) } });
    expect(failed).toMatchObject({ level: 30, code: 'missing_authorization', status: 401 });
    expect(completed).toMatchObject({ msg: 'request completed', level: 30, res: { statusCode: 401 }, responseTime: expect.any(Number) });
  });
});

/** A raw HTTP/1.1 exchange on a new socket: what is written, and everything read until the server closes or `until` holds. */
function exchange(port: number, write: (socket: net.Socket) => void, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => write(socket));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (done(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe.each(TRANSPORTS)('the HTTP pipeline while the app closes, on %s', (_name, url) => {
  it('answers a request that arrives after close began with 503 service_unavailable and Connection: close', async () => {
    const t = await createTestApp('sqlite', { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Closing');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const path = url(assoc);
    const request = (body: string) => {
      const signature = signSendMessage(assoc.clientSecret, { method: 'POST', path, expires: -1, body });
      const authorization = sendMessageAuthorization(assoc.clientId, signature);
      return `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${authorization}\r\nx-auth-expires: -1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    };
    const first = customerMessage({ from: 'closing-1' });
    const second = customerMessage({ from: 'closing-2' });
    let closed: Promise<void> | undefined;
    const text = await exchange(
      port,
      (socket) => {
        // The first request is in flight (its body not yet complete) when close begins; the
        // second is pipelined behind it on the same connection.
        socket.write(request(first) + first.slice(0, 5));
        setTimeout(() => {
          closed = t.close();
          setTimeout(() => socket.write(first.slice(5) + request(second) + second), 20);
        }, 20);
      },
      (got) => (got.match(/HTTP\/1\.1 /g) ?? []).length >= 2 && got.includes('service_unavailable'),
    );
    await closed;
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(answers[1]?.toLowerCase()).toContain('connection: close');
    expect(answers[1]?.toLowerCase()).toContain('x-request-id: ');
    expect(answers[1]).toContain('"errorCode":"service_unavailable"');
  });
});
