/**
 * The HTTP server's limits against slow and idle clients (config.server, composition/http-server.ts createHttpServer):
 * a body that never completes and headers that never end are answered 408 and the connection
 * closed, on generic routes and on the send-message lane; an idle kept-alive connection is closed;
 * connections beyond the cap are closed as they are accepted. Small limits, over real sockets: the
 * tests wait for the server's own timers to fire, bounded by a guard that fails them otherwise.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createTenant, createTestApp, login, ADMIN, type TestApp } from '../helpers/app.js';
import { createAssociation, type TestAssociation } from '../helpers/channel.js';
import { waitFor } from '../helpers/im.js';

/** Fails when the server has not closed the connection within `ms` (the limits under test are far shorter). */
const GUARD_MS = 5000;

/** Opens a socket, writes `request`, and resolves with what the server sent once it closes the connection. */
function untilClosed(port: number, request: string, guardMs = GUARD_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${guardMs} ms; got ${JSON.stringify(text)}`));
    }, guardMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(text);
    });
    socket.on('error', () => undefined);
  });
}

describe('server limit settings', () => {
  it('default to 30 s for a request, 10 s for headers, 5 s keep-alive and 10,000 connections', () => {
    expect(loadConfig({}).server).toEqual({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000 });
  });

  it.each([
    ['PARLEY_REQUEST_TIMEOUT_MS', '0'],
    ['PARLEY_HEADERS_TIMEOUT_MS', 'soon'],
    ['PARLEY_KEEP_ALIVE_TIMEOUT_MS', '-1'],
    ['PARLEY_MAX_CONNECTIONS', '0'],
  ])('rejects %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ PARLEY_REQUEST_TIMEOUT_MS: '1000', PARLEY_HEADERS_TIMEOUT_MS: '2000' })).toThrow(/PARLEY_HEADERS_TIMEOUT_MS/);
  });
});

describe('slow and idle clients', () => {
  let t: TestApp;
  let port: number;
  let assoc: TestAssociation;

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      env: { PARLEY_REQUEST_TIMEOUT_MS: '400', PARLEY_HEADERS_TIMEOUT_MS: '200', PARLEY_KEEP_ALIVE_TIMEOUT_MS: '200' },
    });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Slow');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it('cuts off a body that never completes on a generic route with 408', async () => {
    const text = await untilClosed(port, 'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"username":');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts off a body that never completes on the send-message lane with 408', async () => {
    const head =
      `POST ${assoc.postMessageUrl} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Authorization: hmac ${assoc.clientId}:${'a'.repeat(44)}\r\nX-Auth-Expires: -1\r\nContent-Length: 500\r\n\r\n{"bodies":`;
    const text = await untilClosed(port, head);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts off headers that never end with 408', async () => {
    const text = await untilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    // Node's own default keeps it 5 s: the guard is shorter than that.
    const text = await untilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 2000);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the connection cap', () => {
  let t: TestApp;
  let port: number;
  const open: net.Socket[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { PARLEY_MAX_CONNECTIONS: '2' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await t?.close();
  });

  it('closes connections beyond PARLEY_MAX_CONNECTIONS as they are accepted, and serves again once one ends', async () => {
    // Two connections held open with a request each, answered: the server counts both.
    for (let i = 0; i < 2; i++) {
      const socket = net.connect(port, '127.0.0.1');
      open.push(socket);
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    }
    const third = await untilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(third).toBe('');
    open.shift()?.destroy();
    await waitFor(() => new Promise<number>((resolve) => t.app.server.getConnections((_e, n) => resolve(n))), (n) => n < 2);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});
