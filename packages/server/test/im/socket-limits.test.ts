/**
 * Socket bounds (modules/im/socket-limits.ts) on a real server with real `ws` clients: a client
 * that stops reading is dropped with 1013 and terminated after the grace, while the same user's
 * healthy socket gets everything; the (N+1)th socket of a user closes the oldest with 4206; the
 * (N+1)th socket of an app is refused with 503 before the upgrade.
 *
 * The close grace runs through an injected scheduler the tests fire by hand (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';
import { SocketLimits } from '../../src/modules/im/socket-limits.js';

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

const pause = (client: SocketClient) => (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
const resume = (client: SocketClient) => (client.ws as unknown as { _socket: { resume(): void } })._socket.resume();

describe.each(ENGINES.slice(0, 1))('IM socket limits on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let appId: string;
  /** Terminates waiting for their grace to pass; a test runs them when it wants the grace over. */
  const graceTimers: Array<() => void> = [];
  const limits = new SocketLimits({ bufferBytes: BUFFER_BYTES, perUser: PER_USER, perApp: PER_APP, schedule: (run) => graceTimers.push(run) });
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
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000' }, deps: { imSockets: limits } });
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'sam', 'tom', 'uma', 'vic', 'wes');
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
    pause(slow);
    await sendUntil('tom', () => limits.ofUser(appId, 'tom') === 0);
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
    expect(slow.of('message').some((f) => f.msg_id === stored.body.data.tom)).toBe(false);
    slow.ws.terminate(); // never read again: it would not see the server go either
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
    const [, response] = await once<[unknown, import('node:http').IncomingMessage]>(ws, 'unexpected-response');
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
});
