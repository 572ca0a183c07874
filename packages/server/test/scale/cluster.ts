/**
 * Several Parley processes on one fresh PostgreSQL database and one Redis (behind a TCP proxy the
 * test can cut), with their own Redis key prefix so parallel runs never share state. Plus a
 * callback receiver that counts deliveries per msg_id and can answer slowly or fail.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { startParley, type ParleyProcess } from '../helpers/process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

export const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const OPS = { username: 'ops', password: 'ops-password-1' };

export interface Cluster {
  db: TestDatabase;
  redisProxy: TcpProxy;
  /** Direct connection to Redis (not through the proxy), for inspecting keys. */
  redis: Redis;
  prefix: string;
  env: Record<string, string>;
  start(extraEnv?: Record<string, string>): Promise<ParleyProcess>;
  close(): Promise<void>;
}

export async function startCluster(extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const db = await createTestDatabase('postgres');
  const target = new URL(REDIS_URL);
  const redisProxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  const prefix = `ptest:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const env: Record<string, string> = {
    DATA_DIR: db.config.dataDir,
    DATABASE_URL: db.config.databaseUrl as string,
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    PARLEY_REDIS_PREFIX: prefix,
    PARLEY_SECRET_KEY: randomBytes(32).toString('hex'),
    PARLEY_ADMIN_USERNAME: OPS.username,
    PARLEY_ADMIN_PASSWORD: OPS.password,
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    PARLEY_SEED_DEMO: 'false',
    ...extraEnv,
  };
  const processes: ParleyProcess[] = [];
  return {
    db,
    redisProxy,
    redis,
    prefix,
    env,
    async start(more = {}) {
      const p = await startParley({ ...env, ...more });
      processes.push(p);
      return p;
    },
    async close() {
      await Promise.all(processes.map((p) => (p.proc.exitCode === null && p.proc.signalCode === null ? p.kill9() : undefined)));
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await redisProxy.close();
      await db.destroy();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
}

async function ok(base: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> {
  const res = await call(base, method, path, token, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface ImTarget {
  base: string;
  appId: string;
  token: string;
}

/** A system-admin bearer token (one login: the /api rate limit is part of a test). */
export async function rootToken(origin: string): Promise<string> {
  return (await ok(origin, 'POST', '/api/login', undefined, OPS)).entity.access_token as string;
}

/** An IM app with users alice and bob, callbacks on, one `chat` rule to `url` (when given). */
export async function imApp(origin: string, root: string, name: string, url?: string): Promise<ImTarget> {
  const created = (await ok(origin, 'POST', '/management/apps', root, { org_name: 'scale', app_name: name })).data as Json;
  const base = `/scale/${name}`;
  const token = (
    await ok(origin, 'POST', `${base}/token`, undefined, { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret })
  ).access_token as string;
  await ok(origin, 'POST', `${base}/users`, token, [
    { username: 'alice', password: 'pw-123456' },
    { username: 'bob', password: 'pw-123456' },
  ]);
  if (url) {
    await ok(origin, 'PUT', `${base}/callbacks/service`, token, { enabled: true, store_failed: false });
    await ok(origin, 'POST', `${base}/callbacks/rules`, token, { name: 'main', url, event_types: ['chat'] });
  }
  return { base, appId: created.application as string, token };
}

/** One REST message alice → bob; returns its status. */
export async function sendText(origin: string, target: ImTarget, text: string): Promise<number> {
  const res = await fetch(`${origin}${target.base}/messages/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'alice', to: ['bob'], type: 'txt', body: { msg: text } }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Runs `count` tasks with at most `parallel` at once. */
export async function pooled(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Counts callbacks by the text of the message they carry; answers after `delayMs` with `status`. */
export class CountingReceiver {
  readonly byText = new Map<string, number>();
  total = 0;
  delayMs = 0;
  status = 200;
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CountingReceiver> {
    const ref: { r?: CountingReceiver } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = ref.r as CountingReceiver;
        r.total++;
        const record = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        const text = String(record.payload?.bodies?.[0]?.msg ?? '');
        r.byText.set(text, (r.byText.get(text) ?? 0) + 1);
        const answer = () => {
          res.writeHead(r.status, { 'content-type': 'text/plain' });
          res.end('ok');
        };
        if (r.delayMs > 0) setTimeout(answer, r.delayMs);
        else answer();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new CountingReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`);
    ref.r = receiver;
    server.on('connection', (s: Socket) => {
      receiver.sockets.add(s);
      s.on('close', () => receiver.sockets.delete(s));
    });
    return receiver;
  }

  /** How many of `texts` arrived at least once, and how many arrived more than once (extra copies). */
  tally(texts: readonly string[]): { delivered: number; duplicates: number } {
    let delivered = 0;
    let duplicates = 0;
    for (const t of texts) {
      const n = this.byText.get(t) ?? 0;
      if (n > 0) delivered++;
      if (n > 1) duplicates += n - 1;
    }
    return { delivered, duplicates };
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Sum of a Prometheus counter (all label sets) in an instance's /metrics. */
export async function metricSum(origin: string, name: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
