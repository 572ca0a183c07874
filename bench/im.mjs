#!/usr/bin/env node
/**
 * npm run bench:im — REST sends at 64 connections, one-to-one to a receiver connected by socket.
 *
 * Runs, one after the other:
 *   1. the shared reference of bench/lib/load.mjs: a bare Node `http` server that reads the body and
 *      answers 200 (in this process, as every Parley benchmark measures it);
 *   2. Parley (built `packages/server/dist/main.js` in a child process, SQLite in a temp dir, or
 *      BENCH_DATABASE_URL), so the load generator and the socket receiver do not share its loop.
 * The same closed-loop generator (bench/lib, undici, 64 connections) drives both for BENCH_SECONDS
 * (default 10) after a warm-up. For Parley every message carries its send time in `ext.sent_at`; the socket
 * receiver in this process turns it into send-to-receipt latency (p50/p99).
 *
 * Prints messages/s, the ratio to the bare server, and latency. Figures depend on what else runs on
 * the machine: report the load average with them.
 *
 * Then, on a fresh Parley child (unless BENCH_MSYNC=0), the msync gateway (bench/lib/msync.mjs):
 * one-to-one msync -> msync at BENCH_RATE (2,000) messages/s against JSON socket -> JSON socket at
 * the same rate (each after its own BENCH_WARMUP_SECONDS at that rate, not measured), and
 * BENCH_MSYNC_IDLE (10,000) idle msync connections: resident memory per connection, and how many
 * a heartbeat kept open past the idle timeout. BENCH_REST=0 runs the msync part alone.
 *
 * Last (unless BENCH_READS_PART=0), history and conversation-list reads over stored messages
 * (bench/lib/im-reads.mjs, BENCH_HISTORY_MESSAGES): the p99 of a history page of 20 and of a
 * conversation list of 50.
 *
 * BENCH_PRESEND=1 replaces the REST part with the cost of a pre-send rule whose receiver answers
 * in about 1 ms (bench/lib/im-presend.mjs): rounds alternating without and with the rule.
 * BENCH_PG_ADMIN_URL (without BENCH_DATABASE_URL): each Parley child gets a fresh PostgreSQL
 * database of its own (bench/lib/pg-database.mjs), dropped after it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../packages/server/dist/node-flags.js';
import { cpuSeconds, fmt, freePort, machineSpeedMs, openImSocket, runClosedLoop, startBareServer, summarise } from './lib/load.mjs';
import { benchPresend } from './lib/im-presend.mjs';
import { benchReads } from './lib/im-reads.mjs';
import { createBenchDatabase } from './lib/pg-database.mjs';
import { benchIdle, benchJsonLatency, benchMsyncLatency } from './lib/msync.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const now = () => performance.timeOrigin + performance.now();
const ADMIN_PASSWORD = 'bench-admin-password';
const ENGINE = process.env.BENCH_DATABASE_URL || process.env.BENCH_PG_ADMIN_URL ? 'PostgreSQL' : 'SQLite';
const profileFlags = () => (process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []);

async function waitUp(url) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not come up`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function startChild(args, env) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return child;
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function json(origin, method, p, body, token) {
  const res = await fetch(`${origin}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/**
 * Parley from the build as a child process on `dataDir` (SQLite) or `databaseUrl`; resolves once
 * `/healthz` answers. `stop` sends SIGTERM and waits for the exit.
 */
async function startParleyChild({ dataDir, databaseUrl, env, flags, root = ROOT }) {
  const main = path.join(root, 'packages/server/dist/main.js');
  if (!fs.existsSync(main)) throw new Error('packages/server/dist/main.js is missing: run npm run build');
  const port = await freePort();
  const child = startChild([...NODE_FLAGS, ...flags, main], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    PARLEY_ADMIN_PASSWORD: ADMIN_PASSWORD,
    PARLEY_IM_RATE_LIMIT: '1000000',
    PARLEY_IM_USER_SEND_RATE_LIMIT: '1000000',
    PARLEY_SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUp(`${origin}/healthz`);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, port, origin, stop: () => stopChild(child) };
}

/**
 * Parley from the build as a child process on a fresh SQLite directory (or BENCH_DATABASE_URL; or,
 * with BENCH_PG_ADMIN_URL, a fresh PostgreSQL database of its own, dropped at the end), with an IM
 * app `{org}/im` whose admin token is returned; `close` stops it and removes the directory.
 */
async function startParleyWithApp(orgPrefix, env, flags) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const database = !process.env.BENCH_DATABASE_URL && process.env.BENCH_PG_ADMIN_URL ? await createBenchDatabase(process.env.BENCH_PG_ADMIN_URL) : undefined;
  const databaseUrl = process.env.BENCH_DATABASE_URL || database?.url;
  let server;
  const close = async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
  try {
    server = await startParleyChild({ dataDir, databaseUrl, env, flags });
    const { origin } = server;
    const root = (await json(origin, 'POST', '/api/login', { username: 'admin', password: ADMIN_PASSWORD })).entity.access_token;
    const org = `${orgPrefix}${Date.now().toString(36)}`;
    const created = (await json(origin, 'POST', '/management/apps', { org_name: org, app_name: 'im' }, root)).data;
    const base = `/${org}/im`;
    const admin = (await json(origin, 'POST', `${base}/token`, { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret })).access_token;
    /** Stops the server and starts it again on the same data (with `flags`, from the build in `root`): its new origin. */
    const restart = async (restartFlags, root = ROOT) => {
      await server.stop();
      server = await startParleyChild({ dataDir, databaseUrl, env, flags: restartFlags, root });
      return server.origin;
    };
    return { child: server.child, port: server.port, origin, base, admin, org, dataDir, databaseUrl, restart, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function benchBare() {
  const bare = await startBareServer();
  try {
    return await runClosedLoop({
      origin: bare.origin,
      connections: CONNECTIONS,
      durationMs: SECONDS * 1000,
      warmupMs: WARMUP_SECONDS * 1000,
      request: () => ({ path: '/', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 'sender', to: ['receiver'], type: 'txt', body: { msg: 'hello' } }) }),
    });
  } finally {
    await bare.close();
  }
}

async function benchParley() {
  const { child, port, origin, base, admin, close } = await startParleyWithApp('bench', {}, profileFlags());
  try {
    await json(origin, 'POST', `${base}/users`, [{ username: 'sender', password: 'pw-sender' }, { username: 'receiver', password: 'pw-receiver' }], admin);
    const userToken = (await json(origin, 'POST', `${base}/token`, { grant_type: 'password', username: 'receiver', password: 'pw-receiver' })).access_token;

    const latencies = [];
    let received = 0;
    let measuring = false;
    const ws = await openImSocket(port, base, userToken);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.op !== 'message') return;
      received++;
      if (measuring && typeof frame.payload?.ext?.sent_at === 'number') latencies.push(now() - frame.payload.ext.sent_at);
    });
    // Let the socket become ready (stored messages drained) before the load starts.
    await new Promise((r) => setTimeout(r, 300));

    const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
    const warmupTimer = setTimeout(() => {
      measuring = true;
    }, WARMUP_SECONDS * 1000);
    const cpuBefore = cpuSeconds(child.pid);
    const result = await runClosedLoop({
      origin,
      connections: CONNECTIONS,
      durationMs: SECONDS * 1000,
      warmupMs: WARMUP_SECONDS * 1000,
      request: () => ({
        path: `${base}/messages/users`,
        headers,
        body: JSON.stringify({ from: 'sender', to: ['receiver'], type: 'txt', body: { msg: 'hello' }, ext: { sent_at: now() } }),
      }),
    });
    clearTimeout(warmupTimer);
    measuring = false;
    // Give the fan-out a moment to deliver what was accepted at the end.
    await new Promise((r) => setTimeout(r, 1000));
    ws.close();
    const cpuAfter = cpuSeconds(child.pid);
    const cpuPerMessageUs = cpuBefore === undefined || cpuAfter === undefined || received === 0 ? undefined : ((cpuAfter - cpuBefore) / received) * 1e6;
    return { ...result, received, cpuPerMessageUs, receipt: summarise(latencies) };
  } finally {
    await close();
  }
}

async function benchMsync() {
  const idle = Number(process.env.BENCH_MSYNC_IDLE ?? 10_000);
  const profile = profileFlags();
  const { child, port, origin, base, admin, org, close } = await startParleyWithApp(
    'msync',
    {
      PARLEY_IM_SOCKETS_PER_USER: '1000',
      PARLEY_IM_SOCKETS_PER_APP: String(idle + 100),
      PARLEY_MAX_CONNECTIONS: String(idle + 1000),
    },
    profile,
  );
  try {
    const names = ['sender', 'receiver', ...Array.from({ length: Math.ceil(idle / 500) }, (_, i) => `idle${i}`)];
    await json(origin, 'POST', `${base}/users`, names.map((username) => ({ username, password: 'pw-bench-1' })), admin);
    const tokens = {};
    for (const username of names) tokens[username] = (await json(origin, 'POST', `${base}/token`, { grant_type: 'password', username, password: 'pw-bench-1' })).access_token;
    const appKey = `${org}#im`;
    const rate = Number(process.env.BENCH_RATE ?? 2000);
    const msync = await benchMsyncLatency({ port, appKey, tokens, rate, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const jsonSocket = await benchJsonLatency({ port, base, tokens, rate, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const idleTokens = Object.fromEntries(names.filter((n) => n.startsWith('idle')).map((n) => [n, tokens[n]]));
    const held = await benchIdle({ port, pid: child.pid, appKey, tokens: idleTokens, count: idle, holdSeconds: Number(process.env.BENCH_MSYNC_HOLD_SECONDS ?? 95) });
    return { rate, msync, jsonSocket, held };
  } finally {
    await close();
  }
}

async function benchPresendPart() {
  const { child, port, origin, base, admin, close } = await startParleyWithApp('presend', { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true' }, profileFlags());
  try {
    return await benchPresend({ pid: child.pid, port, origin, base, admin, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
  } finally {
    await close();
  }
}

function printPresend(rounds) {
  const median = (values) => {
    const s = [...values].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  };
  const phase = (p) =>
    `${fmt(p.rate, 0)} messages/s, send -> receipt p50 ${fmt(p.receipt.p50)} ms, p99 ${fmt(p.receipt.p99)} ms over ${p.receipt.count}, HTTP p99 ${fmt(p.http.p99)} ms, server CPU ${fmt(p.cpuPerMessageUs, 0)} µs per send${p.threadsUs ? ` (main thread ${fmt(p.threadsUs.main, 0)}, busiest other thread ${fmt(p.threadsUs.busiest, 0)}, rest ${fmt(p.threadsUs.rest, 0)})` : ''}, pre-send receiver CPU ${fmt(p.receiverCpuUs, 0)} µs, bench process CPU ${fmt(p.benchCpuUs, 0)} µs, ${p.calls} pre-send calls, ${p.errors} errors, ${p.unexpected} non-200`;
  console.log(`pre-send rule (receiver answers {"valid":true} after ~1 ms), ${ENGINE}, ${rounds.length} rounds alternating without / with the rule, ${WARMUP_SECONDS}s + ${SECONDS}s each:`);
  rounds.forEach((r, i) => {
    const first = i % 2 === 0 ? 'without' : 'with';
    for (const side of first === 'without' ? ['without', 'with'] : ['with', 'without']) console.log(`  round ${i + 1} ${side.padEnd(7)}: ${phase(r[side])}`);
    console.log(`  round ${i + 1}: throughput with/without ${fmt(r.with.rate / r.without.rate, 3)}, receipt p99 with - without ${fmt(r.with.receipt.p99 - r.without.receipt.p99, 2)} ms`);
  });
  const pooled = (side) => summarise(rounds.flatMap((r) => r[side].latencies));
  const without = pooled('without');
  const withRule = pooled('with');
  const ratio = median(rounds.map((r) => r.with.rate / r.without.rate));
  const added = median(rounds.map((r) => r.with.receipt.p99 - r.without.receipt.p99));
  console.log(`pre-send: throughput with/without, median of rounds ${fmt(ratio, 3)} (costs ${fmt((1 - ratio) * 100, 1)} %, target at most 20 %)`);
  const cpu = (side) => median(rounds.map((r) => r[side].cpuPerMessageUs));
  console.log(`pre-send: server CPU per send, median of rounds: without ${fmt(cpu('without'), 0)} µs, with ${fmt(cpu('with'), 0)} µs, added per check ${fmt(cpu('with') - cpu('without'), 0)} µs`);
  console.log(`pre-send: send -> receipt p99 added, median of rounds ${fmt(added, 2)} ms; all rounds pooled: without p50 ${fmt(without.p50)} ms p99 ${fmt(without.p99)} ms, with p50 ${fmt(withRule.p50)} ms p99 ${fmt(withRule.p99)} ms, added ${fmt(withRule.p99 - without.p99, 2)} ms (target at most 3 ms)`);
}

async function benchImReads() {
  const { origin, base, admin, org, dataDir, databaseUrl, restart, close } = await startParleyWithApp('reads', {}, []);
  try {
    const db = databaseUrl ? { kind: 'pg', url: databaseUrl } : { kind: 'sqlite', file: path.join(dataDir, 'parley.db') };
    // With BENCH_PROFILE, the reads run on a fresh process started with the profiler, so the profile holds the reads, not the seeding.
    const roots = (process.env.BENCH_READS_ROOTS ?? '').split(',').filter(Boolean).map((r) => path.resolve(r));
    const passes = roots.length
      ? Array.from({ length: Math.max(1, Number(process.env.BENCH_READS_ROUNDS ?? 2)) }, (_, i) => (i % 2 === 0 ? roots : [...roots].reverse()))
          .flat()
          .map((root) => ({ label: root, start: () => restart(profileFlags(), root) }))
      : [{ label: 'this build', ...(process.env.BENCH_PROFILE ? { start: () => restart(profileFlags()) } : {}) }];
    return await benchReads({ origin, base, admin, org, db, passes });
  } finally {
    await close();
  }
}

const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`bench:im — ${CONNECTIONS} connections, ${SECONDS}s measured after ${WARMUP_SECONDS}s warm-up; ${os.cpus().length} CPUs, load average ${load}, machine speed ${machineSpeedMs()} ms (bench/lib: lower is faster)`);
if (process.env.BENCH_PRESEND === '1') {
  printPresend(await benchPresendPart());
} else if (process.env.BENCH_REST !== '0') {
  const bare = await benchBare();
  console.log(`bare node http (bench/lib, in the load process): ${fmt(bare.rate, 0)} req/s, p50 ${fmt(bare.latency.p50)} ms, p99 ${fmt(bare.latency.p99)} ms (${bare.errors} errors)`);
  const parley = await benchParley();
  console.log(`parley REST sends (child process, ${ENGINE}): ${fmt(parley.rate, 0)} messages/s, HTTP p50 ${fmt(parley.latency.p50)} ms, p99 ${fmt(parley.latency.p99)} ms (${parley.errors} errors, ${parley.unexpected} non-200); ${parley.received} received on the socket`);
  console.log(`ratio to bare: ${fmt(parley.rate / bare.rate, 2)} (target >= 0.4)`);
  if (parley.cpuPerMessageUs !== undefined) console.log(`Parley CPU per message (warm-up and measured phase, accept + fan-out + socket): ${fmt(parley.cpuPerMessageUs, 0)} µs`);
  console.log(`send -> socket receipt: p50 ${fmt(parley.receipt.p50)} ms, p99 ${fmt(parley.receipt.p99)} ms over ${parley.receipt.count} messages (target p99 < 50 ms)`);
}
if (process.env.BENCH_MSYNC !== '0') {
  const m = await benchMsync();
  const line = (name, r) => `${name}: p50 ${fmt(r.receipt.p50)} ms, p99 ${fmt(r.receipt.p99)} ms over ${r.receipt.count} of ${r.total} measured messages (${r.received} received with the warm-up)`;
  console.log(`one-to-one at ${m.rate} messages/s for ${SECONDS}s after ${WARMUP_SECONDS}s, send -> receipt (target p99 < 50 ms):`);
  console.log(`  ${line('msync -> msync', m.msync)}`);
  console.log(`  ${line('JSON socket -> JSON socket', m.jsonSocket)}`);
  const h = m.held;
  console.log(`${h.count} idle msync connections: server resident memory ${fmt(h.before / 2 ** 20)} -> ${fmt(h.after / 2 ** 20)} MiB, ${fmt(h.perConnection / 1024)} KiB per connection (goal < 20 KB); after ${h.holdSeconds}s with a 30 s UNREAD heartbeat, ${h.open} still open`);
}
if (process.env.BENCH_READS_PART !== '0') {
  const r = await benchImReads();
  const p = r.plan;
  console.log(`reads, ${ENGINE}: ${r.users} users (${r.usersViaApi} through the API, the rest copies of the first, in ${fmt(r.usersSeconds)} s); ${r.messages} messages through the REST API in ${p.requests} requests: ${p.pairs} hot pairs among ${p.hot} users with ${p.perPair} messages each (${p.pairMessages}), ${p.broadcasts} one-to-many requests of up to ${p.fanOut} receivers`);
  console.log(`  seeding: sent in ${fmt(r.sendSeconds)} s (${fmt(r.messages / r.sendSeconds, 0)} messages/s), all stored offline by the fan-out after ${fmt(r.settledSeconds)} s; ${r.retried} requests answered 404 for users that exist and were sent again`);
  if (r.settle) console.log(`  settled before the reads in ${fmt(r.settle.seconds)} s (${r.settle.analyzedSeconds > 0.05 ? `VACUUM ANALYZE and CHECKPOINT ${fmt(r.settle.analyzedSeconds)} s, ` : ''}load average ${r.settle.load.toFixed(2)})`);
  for (const x of r.results) {
    console.log(`  ${x.label === 'this build' ? '' : `build ${x.label}: `}${x.history.count} reads of each kind (${x.passes.length} pass${x.passes.length > 1 ? 'es' : ''}, each after ${process.env.BENCH_READS_WARMUP ?? 50} not counted); ${fmt(x.historyRowsPerRead)} messages per history page, ${fmt(x.listRowsPerRead)} conversations per list; HTTP round trip:`);
    console.log(`    history page of 20 (messageroaming): p50 ${fmt(x.history.p50)} ms, p90 ${fmt(x.history.p90)} ms, p99 ${fmt(x.history.p99)} ms, max ${fmt(x.history.max)} ms (target p99 < 20 ms)`);
    console.log(`    conversation list of 50 (user_channels/list): p50 ${fmt(x.list.p50)} ms, p90 ${fmt(x.list.p90)} ms, p99 ${fmt(x.list.p99)} ms, max ${fmt(x.list.max)} ms (target p99 < 20 ms)`);
    const t = x.listTail;
    const share = (m) => Object.entries(m).map(([kind, n]) => `${kind} ${n}`).join(', ');
    console.log(`    the ${t.slowest.length} slowest lists: ${share(t.slowestByKind)} (of all lists: ${share(t.allByKind)}; p50 by kind: ${Object.entries(t.p50ByKind).map(([kind, ms]) => `${kind} ${fmt(ms)} ms`).join(', ')}); slowest: ${t.slowest.slice(0, 5).map((s) => `${s.user} ${fmt(s.ms)} ms`).join(', ')}`);
    if (x.passes.length > 1) console.log(`    per pass, p99 history / list: ${x.passes.map((q) => `${fmt(q.history.p99)} / ${fmt(q.list.p99)} ms`).join(', ')}`);
  }
  if (r.explain) console.log(`query plans (h0 and its first hot partner; h0 also sends one-to-many):\n${r.explain}`);
}
console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
