/**
 * The HTTP pipeline's steps (src/http/pipeline.ts) on both transports of one route, over real
 * sockets: the send-message lane in front of Fastify (the path with decimal ids) and Fastify's
 * own route (the same path with a percent-encoded id, which the lane leaves to Fastify). Each step
 * must show the same on both: the request id, the security headers, the metrics under the route
 * pattern, the access log (with the client's address) and the failure line, and the 503 while the
 * app closes. First, how one list orders the phases, and that a request Fastify's router refuses
 * meets the list too.
 */
import net from 'node:net';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, type TestAssociation } from '../helpers/channel.js';
import { FakeClock } from '../helpers/clock.js';
import { HttpPipeline, PIPELINE_STEPS, type PipelineStep, type RequestFacts } from '../../src/http/pipeline.js';

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

describe('the pipeline list', () => {
  it('runs arrive in list order, answer and complete in reverse: the first step to see a request is the last to see its answer', () => {
    const seen: string[] = [];
    const step = (name: string): PipelineStep => ({
      name,
      arrive: () => void seen.push(`arrive ${name}`),
      answer: () => void seen.push(`answer ${name}`),
      complete: () => void seen.push(`complete ${name}`),
    });
    const pipeline = new HttpPipeline(() => undefined, new FakeClock(), () => '', [step('a'), { name: 'b' }, step('c')]);
    const request = { id: 'r', method: 'POST', url: '/', startedAt: 0 } as RequestFacts;
    pipeline.arrive(request);
    pipeline.answer(request, {}, false);
    pipeline.complete(request, '/', 200, 1);
    expect(seen).toEqual(['arrive a', 'arrive c', 'answer c', 'answer a', 'complete c', 'complete a']);
  });

  it('is the list the app runs, in this order', () => {
    expect(PIPELINE_STEPS.map((s) => s.name)).toEqual(['request id', 'access log', 'closing', 'security headers', 'metrics']);
  });
});

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

  it('runs the list for a request that Fastify\'s router refuses before any route', async () => {
    const id = 'refused-by-router';
    const unmatched = async () => {
      const text = (await t.app.inject('/metrics')).body;
      const line = text.split('\n').find((l) => l.startsWith('parley_http_requests_total{method="GET",route="unmatched",status="414"}'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await unmatched();
    const res = await t.app.inject({ method: 'GET', url: `/api/tenants/${'9'.repeat(120)}`, headers: { 'x-request-id': id } });
    expect(res.statusCode).toBe(414);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.headers['content-security-policy']).toBe(DATA_POLICY);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(await unmatched()).toBe(before + 1);
    const mine = () => lines.filter((l) => l.reqId === id);
    await until(() => mine().some((l) => l.msg === 'request completed'), 'the access log line');
    expect(mine().map((l) => l.msg)).toEqual(['incoming request', expect.any(String), 'request completed']);
  });
});

describe.each(TRANSPORTS)('the client address on %s, behind a trusted proxy', (name, url) => {
  it('is logged as the same address: the peer when it comes direct, the forwarded client through the proxy', async () => {
    const lines: LogLine[] = [];
    const t = await createTestApp('sqlite', {
      env: { PARLEY_API_RATE_LIMIT: '100000', LOG_LEVEL: 'info', PARLEY_TRUST_PROXY: '127.0.0.1' },
      deps: { logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
    });
    try {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'Address');
      const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      for (const [forwardedFor, address] of [[undefined, '127.0.0.1'], ['203.0.113.9', '203.0.113.9'], ['198.51.100.7, 127.0.0.1', '198.51.100.7']] as const) {
        const id = `address-${name.replace(/\W/g, '')}-${address}`;
        const headers = { 'x-request-id': id, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) };
        expect((await postRaw(t.app, assoc, customerMessage({ from: 'address' }), { url: url(assoc), headers })).status).toBe(200);
        const incoming = () => lines.find((l) => l.reqId === id && l.msg === 'incoming request');
        await until(() => incoming() !== undefined, 'the access log line');
        expect(incoming()).toMatchObject({ req: { remoteAddress: address } });
      }
    } finally {
      await t.close();
    }
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
