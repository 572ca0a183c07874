/**
 * Outbound isolation on one receiver origin: a key (rule, association) whose receiver hangs holds
 * at most its budget of the origin's shared connections, and another key's requests to the same
 * host and port go out at once. Real HTTP receiver; both the in-process and the worker-thread
 * sender (the latter runs the build: `npm run build` first).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundRequest, OutboundSender } from '../../src/modules/outbound/ports.js';
import { UndiciOutboundSender, type UndiciSenderOptions } from '../../src/modules/outbound/sender.js';
import { ThreadedOutboundSender } from '../../src/modules/outbound/threaded.js';

const SENDERS: Array<[string, (options: UndiciSenderOptions) => OutboundSender]> = [
  ['in process', (options) => new UndiciOutboundSender(options)],
  ['on a worker thread', (options) => new ThreadedOutboundSender(options)],
];

/** Pool of 4 connections per origin, 2 per key. */
const POOL = 4;
const PER_KEY = 2;

describe.each(SENDERS)('outbound budget per key %s', (_mode, makeSender) => {
  let server: http.Server;
  let base: string;
  /** Answers of /hang held open; `releaseHung` ends them (and answers later ones at once). */
  let hung: http.ServerResponse[] = [];
  let hangReleased = false;
  let hangSeen = 0;
  let okSeen = 0;
  let hangWaiters: Array<{ count: number; resolve: () => void }> = [];
  let sender: OutboundSender | undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/hang') {
          hangSeen++;
          for (const w of hangWaiters.filter((w) => hangSeen >= w.count)) w.resolve();
          hangWaiters = hangWaiters.filter((w) => hangSeen < w.count);
          if (hangReleased) return void res.end('released');
          hung.push(res);
          return;
        }
        okSeen++;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    // Every request still open ends, so the sender's close does not wait for deadlines.
    hangReleased = true;
    for (const res of hung) res.end('released');
    hung = [];
    await sender?.close();
    sender = undefined;
    hangReleased = false;
    hangSeen = 0;
    okSeen = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (path: string, budgetKey: string, timeoutMs: number): OutboundRequest => ({
    url: `${base}${path}`,
    headers: {},
    body: '{}',
    timeoutMs,
    maxResponseBytes: 100,
    budgetKey,
  });

  const hangArrived = (count: number) =>
    hangSeen >= count ? Promise.resolve() : new Promise<void>((resolve) => hangWaiters.push({ count, resolve }));

  /** Posts `count` requests of `key` to /hang; the returned counter tells how many have settled. */
  function hangKey(s: OutboundSender, key: string, count: number): { settled: () => number; all: Promise<unknown> } {
    let settled = 0;
    const all = Promise.all(Array.from({ length: count }, () => s.post(request('/hang', key, 30_000)).then(() => settled++)));
    return { settled: () => settled, all };
  }

  it("lets another key's requests to the same origin through at once while a key's receiver hangs", async () => {
    sender = makeSender({ allowPrivate: true, connectionsPerOrigin: POOL, connectionsPerKey: PER_KEY });
    await sender.warmUp?.();
    const a = hangKey(sender, 'rule:a', 8);
    await hangArrived(PER_KEY);

    const results = await Promise.all(Array.from({ length: 6 }, () => (sender as OutboundSender).post(request('/ok', 'rule:b', 3_000))));

    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Key A's requests are all still waiting: held at the receiver, or in A's own queue.
    expect(a.settled()).toBe(0);
    // The hung receiver was given only A's budget of connections.
    expect(hangSeen).toBe(PER_KEY);
    expect(okSeen).toBe(6);
  }, 15_000);

  it('gives the hung key its queued requests in turn once its receiver answers', async () => {
    sender = makeSender({ allowPrivate: true, connectionsPerOrigin: POOL, connectionsPerKey: PER_KEY });
    const a = hangKey(sender, 'association:1', 5);
    await hangArrived(PER_KEY);
    // A request of another key, dispatched after A's, makes the round trip: A's are as far as they get.
    expect((await sender.post(request('/ok', 'association:2', 3_000))).status).toBe(200);
    expect(hangSeen).toBe(PER_KEY);
    hangReleased = true;
    for (const res of hung) res.end('released');
    await a.all;
    expect(hangSeen).toBe(5);
  }, 15_000);

  it('fails a request whose deadline passes while it waits for its key’s budget, and never sends it', async () => {
    sender = makeSender({ allowPrivate: true, connectionsPerOrigin: POOL, connectionsPerKey: PER_KEY });
    await sender.warmUp?.();
    const a = hangKey(sender, 'rule:a', PER_KEY);
    await hangArrived(PER_KEY);
    const started = Date.now();
    const queued = await sender.post(request('/ok', 'rule:a', 200));
    expect(queued.error?.kind).toBe('timeout');
    expect(queued.status).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(a.settled()).toBe(0);
    // Its slot never came: when A's receiver answers, the expired request is skipped, not sent.
    hangReleased = true;
    for (const res of hung) res.end('released');
    await a.all;
    expect(okSeen).toBe(0);
  }, 15_000);

  it('without room left by the budget (one key may take the whole pool), the other key waits behind the hung one', async () => {
    // The failure the budget prevents, on the same receiver: a budget equal to the pool.
    sender = makeSender({ allowPrivate: true, connectionsPerOrigin: POOL, connectionsPerKey: POOL });
    await sender.warmUp?.();
    const a = hangKey(sender, 'rule:a', 8);
    await hangArrived(POOL);
    const result = await sender.post(request('/ok', 'rule:b', 300));
    expect(result.error?.kind).toBe('timeout');
    expect(okSeen).toBe(0);
    expect(a.settled()).toBe(0);
  }, 15_000);
});
