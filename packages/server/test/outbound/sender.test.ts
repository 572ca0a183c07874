import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { callbackSecurity, verifyStandardWebhook } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnsignedRecord } from '../../src/modules/callbacks/record.js';
import { signedRequest } from '../../src/modules/callbacks/record-signing.js';
import { isInternalAddress, checkUrlShape } from '../../src/modules/outbound/address-guard.js';
import { connectionMessage } from '../../src/modules/outbound/connection-error.js';
import type { OutboundSender } from '../../src/modules/outbound/ports.js';
import { UndiciOutboundSender, parseRetryAfter, type UndiciSenderOptions } from '../../src/modules/outbound/sender.js';
import { ThreadedOutboundSender } from '../../src/modules/outbound/threaded.js';

describe('address guard', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1'])(
    'treats %s as internal',
    (ip) => expect(isInternalAddress(ip)).toBe(true),
  );
  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('treats %s as public', (ip) =>
    expect(isInternalAddress(ip)).toBe(false),
  );
  it('accepts only http(s) URLs without credentials', () => {
    expect('reason' in checkUrlShape('ftp://example.com/x')).toBe(true);
    expect('reason' in checkUrlShape('http://user:pw@example.com/')).toBe(true);
    expect('reason' in checkUrlShape('not a url')).toBe(true);
    expect('url' in checkUrlShape('https://example.com/hook')).toBe(true);
  });
  it('says a connection error once: its code as words with its address, or its own message', () => {
    expect(connectionMessage({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9099', address: '127.0.0.1', port: 9099 })).toBe('refused (127.0.0.1:9099)');
    expect(connectionMessage({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED ::1:9099', address: '::1', port: 9099 })).toBe('refused ([::1]:9099)');
    expect(connectionMessage({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nohost.invalid', hostname: 'nohost.invalid' })).toBe('host not found (nohost.invalid)');
    expect(connectionMessage({ code: 'ECONNRESET', message: 'read ECONNRESET' })).toBe('reset by the receiver');
    expect(connectionMessage({ code: 'EPROTO', message: 'write EPROTO wrong version number' })).toBe('write EPROTO wrong version number');
    expect(connectionMessage({ code: 'ESOMETHING', message: 'it broke' })).toBe('ESOMETHING: it broke');
    expect(connectionMessage({ message: 'worker thread exited' })).toBe('worker thread exited');
  });
  it('parses Retry-After in seconds and as a date', () => {
    expect(parseRetryAfter('7', 0)).toBe(7000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});

const SENDERS: Array<[string, (options: UndiciSenderOptions) => OutboundSender]> = [
  ['in process', (options) => new UndiciOutboundSender(options)],
  ['on a worker thread', (options) => new ThreadedOutboundSender(options)],
];

describe.each(SENDERS)('outbound sender %s against a real receiver', (_mode, makeSender) => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === '/long') return res.end('x'.repeat(5000));
        if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
        if (req.url === '/drip') {
          // Headers at once, then a byte every 50 ms for ever: no gap is long enough for a
          // body timeout, so only the request's overall deadline can end it.
          res.writeHead(200);
          const timer = setInterval(() => res.write('.'), 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        if (req.url === '/busy') {
          res.writeHead(503, { 'retry-after': '12' });
          return res.end('busy');
        }
        if (req.url === '/hints') {
          res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
          return res.end('after hints');
        }
        // A body over the cap whose cut falls inside a character: 999 bytes of 'a', then 'é'.
        if (req.url === '/utf8') return res.end(`${'a'.repeat(999)}é${'b'.repeat(100)}`);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (url: string, timeoutMs = 5_000) => ({
    url,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-test': '1' },
    body: '{"hello":"world"}',
    timeoutMs,
    maxResponseBytes: 1000,
    budgetKey: 'rule:1',
  });

  it('posts the body and headers and returns status and body', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/ok`));
    await sender.close();
    expect(result).toMatchObject({ status: 200, body: 'ok', bodyTruncated: false });
    expect(seen.at(-1)).toMatchObject({ body: '{"hello":"world"}', headers: { 'x-test': '1' } });
  });

  it('signs a record sent unsigned where it sends it: the bytes and headers signedRequest gives the record', async () => {
    const sender = makeSender({ allowPrivate: true });
    const record = { callId: 'org#app_1', timestamp: 1_700_000_000_000, msg_id: '42', payload: { bodies: [{ type: 'txt', msg: 'hé' }] } };
    const secret = 'ab'.repeat(16);
    const nowMs = 1_700_000_001_500;
    const signing = { record: JSON.stringify(record), callId: record.callId, timestamp: record.timestamp, secret, nowMs };
    const result = await sender.post({ ...request(`${base}/ok`), headers: {}, body: '', signing });
    await sender.close();
    expect(result.status).toBe(200);
    const expected = signedRequest(record as unknown as UnsignedRecord, secret, nowMs);
    const got = seen.at(-1)!;
    expect(got.body).toBe(expected.body);
    expect(JSON.parse(got.body)).toMatchObject({ security: callbackSecurity(record.callId, secret, record.timestamp) });
    for (const [name, value] of Object.entries(expected.headers)) expect(got.headers[name]).toBe(value);
    expect(verifyStandardWebhook(secret, got.headers as Record<string, string>, got.body, { nowSeconds: 1_700_000_001 })).toBe(true);
  });

  it('reads no more than the cap of a long answer', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/long`));
    await sender.close();
    expect(result.status).toBe(200);
    expect(result.bodyTruncated).toBe(true);
    expect(result.body).toHaveLength(1000);
  });

  it('reports a timeout when the receiver does not answer in time', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/slow`, 200));
    await sender.close();
    expect(result.status).toBeUndefined();
    expect(result.error?.kind).toBe('timeout');
  });

  it('ends a response that keeps dripping at the overall deadline', async () => {
    const sender = makeSender({ allowPrivate: true });
    // Timed from here: a worker thread's start (about a second on a busy machine) is not the request's.
    await sender.warmUp?.();
    const started = Date.now();
    const result = await sender.post(request(`${base}/drip`, 300));
    await sender.close();
    expect(result.error?.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a refused connection, saying so once with the address', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`http://127.0.0.1:${port}/`));
    await sender.close();
    // Not Node's "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:…".
    expect(result.error).toEqual({ kind: 'connection', message: `refused (127.0.0.1:${port})` });
  });

  it('answers with the final status after informational (1xx) answers', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/hints`));
    await sender.close();
    expect(result).toMatchObject({ status: 200, body: 'after hints', bodyTruncated: false });
  });

  it('cuts a long answer at the byte cap, even inside a character', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/utf8`));
    await sender.close();
    expect(result.bodyTruncated).toBe(true);
    expect(result.body.startsWith('a'.repeat(999))).toBe(true);
    expect(Buffer.byteLength(result.body)).toBeLessThanOrEqual(1002);
  });

  it('fails a request still waiting for a connection at its own deadline, and never sends it', async () => {
    const sender = makeSender({ allowPrivate: true, connectionsPerOrigin: 1 });
    await sender.warmUp?.();
    const before = seen.length;
    // The one connection is taken by an answer that comes after 2 s.
    const first = sender.post(request(`${base}/slow`, 5_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    // Another key: it is in the pool's queue, not waiting for its own key's budget (key-isolation.test.ts).
    const queued = await sender.post({ ...request(`${base}/ok`, 200), budgetKey: 'rule:2' });
    expect(queued.error?.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await first).toMatchObject({ status: 200, body: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sender.close();
    expect(seen.slice(before).map((r) => r.body)).toHaveLength(1);
  });

  it('passes Retry-After through', async () => {
    const sender = makeSender({ allowPrivate: true });
    const result = await sender.post(request(`${base}/busy`));
    await sender.close();
    expect(result).toMatchObject({ status: 503, retryAfterMs: 12_000 });
  });

  it('refuses internal addresses at save time and at send time unless allowed', async () => {
    const sender = makeSender({ allowPrivate: false });
    await expect(sender.assertAllowedUrl(`${base}/ok`)).rejects.toMatchObject({ code: 'invalid_callback_url' });
    await expect(sender.assertAllowedUrl('http://localhost:1/')).rejects.toMatchObject({ code: 'invalid_callback_url' });
    await expect(sender.assertAllowedUrl('gopher://example.com/')).rejects.toMatchObject({ code: 'invalid_callback_url' });
    const before = seen.length;
    const literal = await sender.post(request(`${base}/ok`));
    expect(literal.error?.kind).toBe('blocked_address');
    // A host name that resolves to loopback is refused when connecting, not only when saved.
    const named = await sender.post(request(`${base.replace('127.0.0.1', 'localhost')}/ok`));
    expect(named.error?.kind).toBe('blocked_address');
    // Both say which setting would allow the address (the delivery log shows it).
    for (const refused of [literal, named]) expect(refused.error?.message).toContain('PARLEY_ALLOW_PRIVATE_CALLBACKS=true allows it');
    await expect(sender.assertAllowedUrl(`${base}/ok`)).rejects.toThrow(/PARLEY_ALLOW_PRIVATE_CALLBACKS=true/);
    expect(seen.length).toBe(before);
    await sender.close();
    const permissive = makeSender({ allowPrivate: true });
    await expect(permissive.assertAllowedUrl(`${base}/ok`)).resolves.toBeUndefined();
    await permissive.close();
  });
});

describe('outbound sender on a worker thread', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/hang') return;
        if (req.url?.startsWith('/later/')) return void setTimeout(() => res.end(req.url?.slice('/later/'.length)), 200);
        res.end(req.url?.slice('/echo/'.length));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (path: string, timeoutMs = 5_000) => ({ url: `${base}${path}`, headers: {}, body: '{}', timeoutMs, maxResponseBytes: 100, budgetKey: 'rule:1' });

  it('gives every caller its own answer when many requests travel together', async () => {
    const sender = new ThreadedOutboundSender({ allowPrivate: true });
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => sender.post(request(`/echo/${i}`))));
    await sender.close();
    expect(results.map((r) => r.body)).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
    expect(results.every((r) => r.status === 200 && r.latencyMs > 0)).toBe(true);
  });

  it('ends the requests of a worker that dies as connection failures, and starts a new one', async () => {
    const sender = new ThreadedOutboundSender({ allowPrivate: true });
    expect((await sender.post(request('/echo/first'))).body).toBe('first');
    const pending = sender.post(request('/hang'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sender.stopWorker();
    expect(await pending).toMatchObject({ error: { kind: 'connection' } });
    expect((await sender.post(request('/echo/after'))).body).toBe('after');
    await sender.close();
  });

  it('lets in-flight requests finish on close, then refuses new ones', async () => {
    const sender = new ThreadedOutboundSender({ allowPrivate: true });
    const inFlight = sender.post(request('/later/done'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sender.close();
    expect(await inFlight).toMatchObject({ status: 200, body: 'done' });
    expect(await sender.post(request('/echo/x'))).toMatchObject({ error: { kind: 'connection' } });
  });
});
