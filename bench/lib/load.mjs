/**
 * Shared load-generation helpers for Parley's benchmarks (`npm run bench:*`).
 *
 * runClosedLoop keeps `connections` requests in flight on an undici Pool for `durationMs` and
 * reports throughput and latency percentiles; startBareServer is the reference a result is
 * compared with: a plain node:http server that reads the body and answers 200.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import WebSocket from 'ws';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarise(latenciesMs) {
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/**
 * A closed loop of `connections` requests in flight on one undici Pool, run in phases: `phase(ms,
 * record)` keeps every connection busy for `ms` and, when `record`, returns what it measured.
 * The pool (and its connections) stays open between phases until `close()`.
 *
 * @param {{ origin: string, connections: number,
 *           request: (i: number) => { path: string, method?: string, headers?: Record<string,string>, body?: string },
 *           expectStatus?: number }} opts
 */
export function closedLoop(opts) {
  const pool = new Pool(opts.origin, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const expected = opts.expectStatus ?? 200;
  let seq = 0;
  return {
    /** `requests`: those recorded; `done`: all completed, recorded or not. @returns {Promise<{ requests: number, done: number, seconds: number, latencies: number[], errors: number, unexpected: number }>} */
    async phase(ms, record = true) {
      const latencies = [];
      let errors = 0;
      let unexpected = 0;
      let done = 0;
      const one = async () => {
        const r = opts.request(seq++);
        const t0 = performance.now();
        try {
          const res = await pool.request({ path: r.path, method: r.method ?? 'POST', headers: r.headers, body: r.body });
          await res.body.dump();
          if (res.statusCode !== expected) unexpected++;
        } catch {
          errors++;
        }
        done++;
        if (record) latencies.push(performance.now() - t0);
      };
      const started = performance.now();
      const until = started + ms;
      await Promise.all(
        Array.from({ length: opts.connections }, async () => {
          while (performance.now() < until) await one();
        }),
      );
      return { requests: latencies.length, done, seconds: (performance.now() - started) / 1000, latencies, errors, unexpected };
    },
    close: () => pool.close(),
  };
}

/**
 * One warm-up phase then one measured phase of a closed loop (see closedLoop); reports
 * throughput and latency percentiles of the measured phase.
 *
 * @param {{ origin: string, connections: number, durationMs: number, warmupMs?: number,
 *           request: (i: number) => { path: string, method?: string, headers?: Record<string,string>, body?: string },
 *           expectStatus?: number }} opts
 */
export async function runClosedLoop(opts) {
  const loop = closedLoop(opts);
  if (opts.warmupMs) await loop.phase(opts.warmupMs, false);
  const r = await loop.phase(opts.durationMs, true);
  await loop.close();
  return { requests: r.requests, rate: r.requests / r.seconds, errors: r.errors, unexpected: r.unexpected, latency: summarise(r.latencies) };
}

/** A bare node:http server that reads the whole body and answers 200 `{}`. */
export async function startBareServer() {
  const server = http.createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));

/** User + system CPU seconds in a /proc stat file (a process's or a thread's), or undefined. */
function statCpuSeconds(file) {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, seconds) a process has used so far, from /proc (Linux), or undefined.
 * Throughput ratios move with whatever else the machine runs; CPU per request barely does.
 */
export function cpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds used so far by each thread of a process, by thread id (Linux; empty elsewhere). */
export function threadCpuSeconds(pid) {
  const threads = new Map();
  let tids = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const seconds = statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    if (seconds !== undefined) threads.set(Number(tid), seconds);
  }
  return threads;
}

/**
 * Where a process's CPU went between two `threadCpuSeconds` readings, split three ways: its main
 * thread (thread id = pid), its busiest other thread, and all the others together.
 */
export function threadSplit(pid, before, after) {
  const used = [];
  for (const [tid, seconds] of after) used.push([tid, seconds - (before.get(tid) ?? 0)]);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = used.filter(([tid]) => tid !== pid).map(([, s]) => s).sort((a, b) => b - a);
  const busiest = others[0] ?? 0;
  return { main, busiest, rest: others.slice(1).reduce((a, b) => a + b, 0) };
}

/**
 * A fixed CPU workload (100,000 chained SHA-256 hashes), timed in ms: how fast this machine is right
 * now. The shared development VM changes speed by up to 2× between hours, so every bench prints it
 * next to its results (lower is faster).
 */
export function machineSpeedMs() {
  const started = performance.now();
  let h = '';
  for (let i = 0; i < 100_000; i++) h = createHash('sha256').update(h + i).digest('hex');
  return Math.round(performance.now() - started);
}

/** A TCP port free on loopback right now (for a child process to listen on). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A counting receiver (answers 200, counts) in a child process, so that it shares no event loop
 * with the sender it measures. Same shape as `startReceiver('count')`, plus `pid` (to add its CPU
 * time to a run's); its count reaches this process every 20 ms. `mode` 'presend': it answers
 * `{"valid":true}` after about 1 ms, as a pre-send receiver (receiver-process.mjs).
 */
export async function startReceiverProcess(mode = 'count') {
  const child = fork(new URL('./receiver-process.mjs', import.meta.url), mode === 'presend' ? ['presend'] : [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let count = 0;
  let first;
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
    child.on('message', (message) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.count !== undefined) count = message.count;
      if (message.first !== undefined) first = message.first;
    });
  });
  return {
    url: `http://127.0.0.1:${port}/cb`,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid,
    count: () => count,
    first: () => first,
    reset: () => {
      count = 0;
      child.send('reset');
    },
    close: () => new Promise((r) => {
      child.once('exit', r);
      child.disconnect();
    }),
  };
}

/**
 * A callback receiver: `ok` answers 200 and records receipt latency against the record's
 * `timestamp`, `count` answers 200 and only counts, `hang` never answers.
 */
export async function startReceiver(mode = 'ok') {
  const latencies = [];
  // Receipt time (the record's timestamp) of each latency, for a per-second timeline.
  const stamps = [];
  let count = 0;
  let first;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      count++;
      // The first request as Parley sent it, replayed by the raw undici reference in (b).
      if (!first) first = { headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))), body: Buffer.concat(chunks).toString() };
      if (mode === 'hang') return;
      if (mode === 'ok') {
        const { timestamp } = JSON.parse(Buffer.concat(chunks).toString());
        latencies.push(Date.now() - timestamp);
        stamps.push(timestamp);
      }
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
    stamps,
    count: () => count,
    first: () => first,
    reset: () => {
      latencies.length = 0;
      stamps.length = 0;
      count = 0;
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

/** Parley's JSON socket of one user (`GET {base}/ws?access_token=…`), once it is open. */
export function openImSocket(port, base, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${base}/ws?access_token=${encodeURIComponent(token)}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}
