/**
 * Socket bounds (modules/im/socket-limits.ts) on a real server with real `ws` clients: a client
 * that stops reading is dropped with 1013 and terminated after the grace, while the same user's
 * healthy socket gets everything; the (N+1)th socket of a user closes the oldest with 4206; the
 * (N+1)th socket of an app is refused with 503 before the upgrade.
 *
 * The close grace runs through an injected scheduler the tests fire by hand (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';
import { SocketLimits, type LimitedSocket, type SocketLease, type SocketLimitsOptions, type SocketTransport } from '../../src/modules/im/socket-limits.js';

const BUFFER_BYTES = 16 * 1024;
const PER_USER = 3;
const PER_APP = 4;

/** Resolves with the first `event` of `emitter`, or rejects after `timeoutMs`. */
function once<T extends unknown[]>(emitter: WebSocket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    emitter.once(event, (...args: unknown[]) => {
      clearTimeout(timer);
      resolve(args as T);
    });
  });
}

/** The real limits, remembering the server-side sockets they admitted so tests can read their buffers. */
class RecordingLimits extends SocketLimits {
  readonly admitted: Array<{ username: string; socket: LimitedSocket; lease: SocketLease | undefined }> = [];
  constructor(options: SocketLimitsOptions) {
    super(options);
  }
  override admit(appId: string, username: string, socket: LimitedSocket, transport: SocketTransport | undefined, onDrop: (code: number, reason: string) => void) {
    const lease = super.admit(appId, username, socket, transport, onDrop);
    this.admitted.push({ username, socket, lease });
    return lease;
  }
  last(username: string): LimitedSocket {
    return this.lastAdmitted(username).socket;
  }
  lastLease(username: string): SocketLease {
    const lease = this.lastAdmitted(username).lease;
    if (!lease) throw new Error(`the socket of ${username} was refused`);
    return lease;
  }
  private lastAdmitted(username: string) {
    const found = this.admitted.filter((a) => a.username === username).at(-1);
    if (!found) throw new Error(`no socket of ${username}`);
    return found;
  }
}

const pause = (client: SocketClient) => (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
const resume = (client: SocketClient) => (client.ws as unknown as { _socket: { resume(): void } })._socket.resume();

describe.each(ENGINES)('IM socket limits on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let appId: string;
  /** Terminates waiting for their grace to pass; a test runs them when it wants the grace over. */
  const graceTimers: Array<() => void> = [];
  const limits = new RecordingLimits({ bufferBytes: BUFFER_BYTES, perUser: PER_USER, perApp: PER_APP, schedule: (run) => graceTimers.push(run) });
  const clients: SocketClient[] = [];
  const connect = async (username: string, handle = im) => {
    const client = await SocketClient.connect(url, handle.base, await userToken(t.app, handle, username));
    clients.push(client);
    return client;
  };
  const ready = (username: string, count: number) => waitFor(() => t.app.parley.im.presence.connections(appId, username), (n) => n === count);
  const runGraceTimers = () => graceTimers.splice(0).forEach((run) => run());
  const big = 'x'.repeat(4000);

  /** Sends 25 messages from `username` to itself over REST at once; returns their msg_ids. */
  async function sendBatch(username: string): Promise<string[]> {
    const batch = await Promise.all(
      Array.from({ length: 25 }, () => call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: username, to: [username], type: 'txt', body: { msg: big } })),
    );
    return batch.map((res) => {
      expect(res.status).toBe(200);
      return res.body.data[username] as string;
    });
  }

  /** Sends batches until `done()` holds; returns the msg_ids. */
  async function sendUntil(username: string, done: () => boolean, max = 4000): Promise<string[]> {
    const ids: string[] = [];
    while (!done()) {
      if (ids.length >= max) throw new Error(`condition not met after ${max} messages`);
      ids.push(...(await sendBatch(username)));
    }
    return ids;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000', PARLEY_IM_USER_SEND_RATE_LIMIT: '100000' }, deps: { imSockets: limits } });
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'sam', 'tom', 'uma', 'vic', 'wes', 'xen');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    runGraceTimers();
    await t?.close();
  });

  it('drops a socket that stops reading with 1013 while the healthy socket of the same user gets every message', async () => {
    const healthy = await connect('sam');
    const slow = await connect('sam');
    await ready('sam', 2);
    expect(limits.ofUser(appId, 'sam')).toBe(2);
    pause(slow);

    const ids = await sendUntil('sam', () => limits.ofUser(appId, 'sam') === 1);
    // Dropped at once: offline for its user, its close frame sent, the terminate waiting for the grace.
    expect(t.app.parley.im.presence.connections(appId, 'sam')).toBe(1);
    expect(graceTimers).toHaveLength(1);
    // After the drop nothing more is queued behind the slow socket, so the user's messages keep
    // flowing to the healthy one, all of them.
    const more = await sendBatch('sam');
    const after = await call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: 'sam', to: ['sam'], type: 'txt', body: { msg: 'after the drop' } });
    expect(after.status).toBe(200);
    const all = [...ids, ...more, after.body.data.sam as string];
    await waitFor(() => new Set(healthy.of('message').map((f) => f.msg_id)), (got) => all.every((id) => got.has(id)), 10_000);
    expect(healthy.closed).toBe(false);

    // A peer that reads again within the grace finds the documented close code after what it was sent.
    const closed = once<[number, Buffer]>(slow.ws, 'close');
    resume(slow);
    const [code, reason] = await closed;
    expect(code).toBe(1013);
    expect(String(reason)).toBe('slow consumer: outbound buffer full');
    expect(slow.of('message').length).toBeLessThan(all.length);
    await waitFor(() => limits.ofApp(appId), (n) => n === 1);
    runGraceTimers(); // the grace ends after the socket closed: nothing left to terminate
    expect(limits.ofApp(appId)).toBe(1);
    await healthy.close();
    await waitFor(() => limits.size(), (n) => n === 0);
  });

  it('terminates a dropped socket that never reads again after the grace, freeing what it held', async () => {
    const slow = await connect('tom');
    await ready('tom', 1);
    const held = limits.last('tom');
    pause(slow);
    await sendUntil('tom', () => limits.ofUser(appId, 'tom') === 0);
    // Dropped as soon as its buffer passed the bound: it holds the bound and one turn's frames at most.
    expect(held.bufferedAmount).toBeGreaterThan(BUFFER_BYTES);
    expect(held.bufferedAmount).toBeLessThan(BUFFER_BYTES + 25 * 5 * 1024);
    // Offline now: what follows is stored for the user instead of being pushed at the socket.
    expect(t.app.parley.im.presence.connections(appId, 'tom')).toBe(0);
    await t.app.parley.jobs.idle('im.fanout');
    const stored = await call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: 'sam', to: ['tom'], type: 'txt', body: { msg: 'kept for later' } });
    await t.app.parley.jobs.idle('im.fanout');
    const count = await call(t.app, im.adminToken, 'GET', `${im.base}/users/tom/offline_msg_count`);
    expect(count.body.data.tom).toBeGreaterThanOrEqual(1);
    // Until the grace ends the server still holds the socket (and its buffer)...
    expect(limits.ofApp(appId)).toBe(1);
    expect(graceTimers).toHaveLength(1);
    // ...then terminates it without waiting for the peer.
    runGraceTimers();
    await waitFor(() => limits.size(), (n) => n === 0);
    expect(held.bufferedAmount).toBe(0);
    expect(slow.of('message').some((f) => f.msg_id === stored.body.data.tom)).toBe(false);
    slow.ws.terminate(); // never read again: it would not see the server go either
  });

  it('drains stored messages only as fast as a socket takes them: none claimed ahead, none dropped', async () => {
    for (let i = 0; i < 60; i++) await sendBatch('xen'); // about 6 MB, more than the kernel's buffers take
    await t.app.parley.jobs.idle('im.fanout');
    const offline = async () => (await call(t.app, im.adminToken, 'GET', `${im.base}/users/xen/offline_msg_count`)).body.data.xen as number;
    expect(await offline()).toBe(1500);
    const client = await connect('xen');
    pause(client);
    const held = limits.last('xen');
    // The transport is full (past its high-water mark): the drain waits instead of claiming more.
    await waitFor(() => limits.lastLease('xen').waiting, (waiting) => waiting, 10_000);
    expect(held.bufferedAmount).toBeGreaterThanOrEqual(16 * 1024);
    expect(await offline()).toBeGreaterThan(0);
    expect(held.bufferedAmount).toBeLessThan(16 * 1024 + 100 * 5 * 1024);
    expect(limits.ofUser(appId, 'xen')).toBe(1);
    resume(client);
    await client.waitFrames('message', 1500, 20_000);
    // Delivered once written to the connection (the JSON socket's acknowledgement): the last batch's mark may still be landing.
    await waitFor(offline, (n) => n === 0);
    expect(limits.ofUser(appId, 'xen')).toBe(1);
    await client.close();
    await waitFor(() => limits.size(), (n) => n === 0);
  });

  it(`closes the oldest socket of a user beyond ${PER_USER} with 4206 "logged in on another device"`, async () => {
    const first = await connect('uma');
    const others = [await connect('uma'), await connect('uma')];
    await ready('uma', PER_USER);
    const closed = once<[number, Buffer]>(first.ws, 'close');
    const newest = await connect('uma');
    const [code, reason] = await closed;
    expect(code).toBe(4206);
    expect(String(reason)).toBe('logged in on another device');
    expect(limits.ofUser(appId, 'uma')).toBe(PER_USER);
    await ready('uma', PER_USER);
    const res = await call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: 'vic', to: ['uma'], type: 'txt', body: { msg: 'to every device' } });
    for (const client of [...others, newest]) await client.waitText('to every device');
    expect(first.of('message').some((f) => f.msg_id === res.body.data.uma)).toBe(false);
    await Promise.all([...others, newest].map((c) => c.close()));
    await waitFor(() => limits.size(), (n) => n === 0);
  });

  it(`refuses the socket beyond ${PER_APP} of an app with 503 in the IM envelope, before the upgrade`, async () => {
    const open = [await connect('vic'), await connect('vic'), await connect('wes'), await connect('wes')];
    expect(limits.ofApp(appId)).toBe(PER_APP);
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${im.base}/ws?access_token=${encodeURIComponent(await userToken(t.app, im, 'sam'))}`);
    const [, response] = await once<[unknown, IncomingMessage]>(ws, 'unexpected-response');
    ws.on('error', () => undefined);
    let body = '';
    for await (const chunk of response) body += String(chunk);
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(body)).toMatchObject({ error: 'service_unavailable', error_description: expect.stringContaining(`limit of ${PER_APP} open sockets`) });
    // Another app has its own count.
    const other = await createImApp(t.app, 'acme', 'other');
    await createUsers(t.app, other, 'sam');
    const elsewhere = await connect('sam', other);
    expect(elsewhere.closed).toBe(false);
    // A closed socket frees its slot.
    await open[0]?.close();
    await waitFor(() => limits.ofApp(appId), (n) => n === PER_APP - 1);
    const again = await connect('sam');
    expect(again.closed).toBe(false);
    await Promise.all([...open, elsewhere, again].map((c) => c.close()));
  });

  it('stops reading from a client that sends frames faster than they are handled, and reads again once they are', async () => {
    const client = await connect('sam');
    await ready('sam', 1);
    const server = limits.last('sam') as unknown as WebSocket;
    for (let i = 0; i < 100; i++) client.send({ op: 'send', id: `p${i}`, chat_type: 'chat', to: 'tom', bodies: [{ type: 'txt', msg: `n${i}` }] });
    await waitFor(() => server.isPaused, (paused) => paused);
    const acks = await client.waitFrames('ack', 100, 20_000);
    expect(acks.map((a) => a.id)).toEqual(Array.from({ length: 100 }, (_, i) => `p${i}`));
    expect(server.isPaused).toBe(false);
    await client.close();
  });
});

describe('SocketLimits', () => {
  class FakeTransport extends EventEmitter implements SocketTransport {
    writableNeedDrain = false;
  }
  class FakeSocket implements LimitedSocket {
    bufferedAmount = 0;
    closed: Array<[number, string]> = [];
    terminated = false;
    close(code: number, reason: string) {
      this.closed.push([code, reason]);
    }
    terminate() {
      this.terminated = true;
    }
  }

  it('closes a socket admitted past the app cap with 1013 and terminates it after the grace', () => {
    const timers: Array<() => void> = [];
    const limits = new SocketLimits({ bufferBytes: 1024, perUser: 5, perApp: 1, schedule: (run) => timers.push(run) });
    expect(limits.admit('app', 'a', new FakeSocket(), undefined, () => undefined)).toBeDefined();
    // Two upgrades raced past assertRoom: the second is closed right after its upgrade.
    const late = new FakeSocket();
    expect(limits.admit('app', 'b', late, undefined, () => undefined)).toBeUndefined();
    expect(late.closed).toEqual([[1013, 'too many sockets for this app; try again later']]);
    expect(late.terminated).toBe(false);
    timers.forEach((run) => run());
    expect(late.terminated).toBe(true);
    expect(limits.ofApp('app')).toBe(1);
    expect(() => limits.assertRoom('app')).toThrow(/limit of 1 open sockets/);
    expect(() => limits.assertRoom('other')).not.toThrow();
  });

  it('drops a socket over the bound before the next frame, and tells its owner once', () => {
    const limits = new SocketLimits({ bufferBytes: 1024, perUser: 5, perApp: 5, schedule: () => undefined });
    const socket = new FakeSocket();
    const drops: number[] = [];
    const lease = limits.admit('app', 'a', socket, undefined, (code) => drops.push(code));
    socket.bufferedAmount = 1024;
    expect(lease?.admitFrame()).toBe(true);
    socket.bufferedAmount = 1025;
    expect(lease?.admitFrame()).toBe(false);
    expect(lease?.admitFrame()).toBe(false);
    expect(drops).toEqual([1013]);
    expect(socket.closed).toEqual([[1013, 'slow consumer: outbound buffer full']]);
    expect(limits.ofUser('app', 'a')).toBe(0);
    // Still held until it has closed.
    expect(limits.ofApp('app')).toBe(1);
    lease?.release();
    lease?.release();
    expect(limits.size()).toBe(0);
  });

  it('lets a drain wait until the transport wants more, or the socket is gone', async () => {
    const limits = new SocketLimits({ bufferBytes: 1024, perUser: 5, perApp: 5, schedule: () => undefined });
    const transport = new FakeTransport();
    const lease = limits.admit('app', 'a', new FakeSocket(), transport, () => undefined);
    await lease?.writable(); // below its high-water mark: at once
    transport.writableNeedDrain = true;
    let woke = 0;
    void lease?.writable().then(() => woke++);
    void lease?.writable().then(() => woke++);
    await Promise.resolve();
    expect(woke).toBe(0);
    expect(transport.listenerCount('drain')).toBe(1);
    transport.writableNeedDrain = false;
    transport.emit('drain');
    await new Promise((resolve) => setImmediate(resolve));
    expect(woke).toBe(2);
    transport.writableNeedDrain = true;
    const gone = lease?.writable();
    lease?.release();
    await gone;
  });
});
