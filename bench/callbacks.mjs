/**
 * `npm run bench:callbacks`: post-send callback latency, drain rate and isolation (issue 5).
 *
 *  (a) end-to-end: REST messages at a steady rate (default 2,000/s for 30 s) into a rule whose
 *      receiver answers 200; latency from message receipt (the record's `timestamp`) to callback
 *      receipt, p50/p99/p99.9 (target p99.9 < 100 ms).
 *  (b) drain: 100,000 pending records delivered to a bare receiver; the rate compared with raw
 *      undici POSTs of the same bodies to the same receiver (target ratio ≥ 0.5).
 *  (c) isolation: (a) again while a second app's receiver never answers (target p99 < 200 ms).
 *
 * Runs the built server in this process on a fresh SQLite directory (DATABASE_URL=postgres://...
 * to use PostgreSQL). Knobs: BENCH_RATE, BENCH_SECONDS, BENCH_DRAIN, BENCH_ONLY=a,b,c.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { buildApp } from '../packages/server/dist/app.js';
import { configFrom } from '../packages/server/dist/config/index.js';
import { fmt, summarise } from './lib/load.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const DRAIN = Number(process.env.BENCH_DRAIN ?? 100_000);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c').split(','));

/** A receiver that records receipt latency against the record's timestamp; or never answers. */
async function startReceiver(mode = 'ok') {
  const latencies = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      count++;
      if (mode === 'hang') return;
      if (mode === 'ok') latencies.push(Date.now() - JSON.parse(Buffer.concat(chunks).toString()).timestamp);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/cb`,
    origin: `http://127.0.0.1:${server.address().port}`,
    latencies,
    count: () => count,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

async function startParley(env = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-cb-'));
  const config = configFrom({
    DATA_DIR: dataDir,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    PARLEY_ADMIN_USERNAME: 'bench',
    PARLEY_ADMIN_PASSWORD: 'bench-password',
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    PARLEY_IM_RATE_LIMIT: '1000000',
    PARLEY_SEED_DEMO: 'false',
    ...env,
  });
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, origin: `http://127.0.0.1:${app.server.address().port}`, close: async () => { await app.close(); fs.rmSync(dataDir, { recursive: true, force: true }); } };
}

async function inject(app, method, url, token, payload) {
  const res = await app.inject({ method, url, payload, headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Creates an IM app with users and one `chat` rule to `url`; returns its REST base and token. */
async function imAppWithRule(app, name, url) {
  const root = (await inject(app, 'POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
  const created = (await inject(app, 'POST', '/management/apps', root, { org_name: 'bench', app_name: name })).data;
  const base = `/bench/${name}`;
  const token = (await inject(app, 'POST', `${base}/token`, undefined, { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret })).access_token;
  await inject(app, 'POST', `${base}/users`, token, [{ username: 'alice', password: 'pw-123456' }, { username: 'bob', password: 'pw-123456' }]);
  await inject(app, 'PUT', `${base}/callbacks/service`, token, { enabled: true, store_failed: false });
  await inject(app, 'POST', `${base}/callbacks/rules`, token, { name: 'main', url, event_types: ['chat'] });
  return { base, token, appId: created.application, appkey: `bench#${name}` };
}

/** Open loop: `rate` REST messages per second for `seconds`, each from alice to bob. */
async function steadySend(origin, target, rate, seconds) {
  const pool = new Pool(origin, { connections: 64, pipelining: 1 });
  const body = JSON.stringify({ from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'benchmark message' } });
  const headers = { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' };
  let sent = 0;
  let failed = 0;
  const inflight = new Set();
  const started = performance.now();
  const total = rate * seconds;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    while (sent < due) {
      sent++;
      const p = pool
        .request({ path: `${target.base}/messages/users`, method: 'POST', headers, body })
        .then(async (res) => { if (res.statusCode !== 200) failed++; await res.body.dump(); })
        .catch(() => { failed++; })
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return { sent, failed, achievedRate: sent / elapsed };
}

async function waitCount(fn, n, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (fn() < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return fn();
}

function report(title, lat, extra) {
  const s = summarise(lat);
  console.log(`${title}: ${s.count} callbacks, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, p99.9 ${fmt(s.p999)} ms, max ${fmt(s.max)} ms${extra ? `; ${extra}` : ''}`);
  return s;
}

async function endToEnd(withHungApp) {
  const receiver = await startReceiver('ok');
  const hung = withHungApp ? await startReceiver('hang') : undefined;
  const parley = await startParley();
  try {
    const healthy = await imAppWithRule(parley.app, 'healthy', receiver.url);
    const sends = [steadySend(parley.origin, healthy, RATE, SECONDS)];
    if (hung) {
      const stuck = await imAppWithRule(parley.app, 'stuck', hung.url);
      sends.push(steadySend(parley.origin, stuck, Math.max(1, Math.floor(RATE / 10)), SECONDS));
    }
    const [result] = await Promise.all(sends);
    const got = await waitCount(receiver.count, result.sent - result.failed, 60_000);
    const s = report(
      withHungApp ? '(c) isolation, healthy app' : '(a) end-to-end',
      receiver.latencies,
      `sent ${result.sent} at ${fmt(result.achievedRate, 0)}/s, ${result.failed} send errors, ${got} received${hung ? `, hung receiver saw ${hung.count()}` : ''}`,
    );
    return s;
  } finally {
    await parley.close();
    await receiver.close();
    await hung?.close();
  }
}

async function drain() {
  const receiver = await startReceiver('count');
  const parley = await startParley({ PARLEY_WORKERS: 'false' });
  try {
    const target = await imAppWithRule(parley.app, 'drain', receiver.url);
    const { callbacks, storage, jobs } = parley.app.parley;
    const t0 = performance.now();
    for (let i = 0; i < DRAIN; i += 1000) {
      await storage.db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(DRAIN, i + 1000); j++) {
          await callbacks.hook.onMessage(trx, {
            appId: target.appId, appkey: target.appkey, msgId: String(1e15 + j), from: 'alice', to: 'bob', chatType: 'chat',
            timestamp: Date.now(), payload: { bodies: [{ type: 'txt', msg: 'benchmark message' }], ext: {} }, source: 'rest', offlineReceivers: [],
          });
        }
      });
    }
    console.log(`(b) drain: ${DRAIN} records queued in ${fmt((performance.now() - t0) / 1000)} s`);
    const started = performance.now();
    jobs.start();
    await waitCount(receiver.count, DRAIN, 600_000);
    const seconds = (performance.now() - started) / 1000;
    const parleyRate = receiver.count() / seconds;

    // Reference: the same bodies POSTed with undici straight to the same receiver, same concurrency.
    const concurrency = parley.app.parley.config.callbacks.ruleConcurrency;
    const pool = new Pool(receiver.origin, { connections: concurrency, pipelining: 1 });
    const body = JSON.stringify({ callId: 'x', eventType: 'chat', timestamp: Date.now(), payload: { bodies: [{ type: 'txt', msg: 'benchmark message' }], ext: {} } });
    let next = 0;
    const rawStart = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next++ < DRAIN) {
        const res = await pool.request({ path: '/cb', method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.body.text();
      }
    }));
    const rawRate = DRAIN / ((performance.now() - rawStart) / 1000);
    await pool.close();
    console.log(`(b) drain: Parley ${fmt(parleyRate, 0)}/s, raw undici ${fmt(rawRate, 0)}/s, ratio ${fmt(parleyRate / rawRate, 2)} (target ≥ 0.5)`);
    return { parleyRate, rawRate };
  } finally {
    await parley.close();
    await receiver.close();
  }
}

console.log(`callbacks bench: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, ${RATE} msg/s for ${SECONDS} s, drain ${DRAIN}, ${os.cpus().length} CPUs`);
if (ONLY.has('a')) await endToEnd(false);
if (ONLY.has('b')) await drain();
if (ONLY.has('c')) await endToEnd(true);
process.exit(0);
