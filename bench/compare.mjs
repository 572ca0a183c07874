#!/usr/bin/env node
/**
 * Old build against new build, alternating in one run: the way a change is shown to cost no more
 * than 10 % on a benchmark on a shared, noisy machine.
 *
 *   node bench/compare.mjs OLD_ROOT NEW_ROOT BENCH [PAIRS]
 *
 * OLD_ROOT and NEW_ROOT are two checkouts of Parley, each installed and built (`npm ci` builds);
 * e.g. `git worktree add /tmp/parley-old <commit>` beside this one. BENCH is ingest, im or
 * callbacks. Each pair runs `node ROOT/bench/BENCH.mjs` on the old root, then on the new one (the
 * order flips every pair, so a slow spell falls on both), with the environment passed through
 * (BENCH_SECONDS and the like). The bench's own figures are read from what it prints; the summary
 * gives each figure's median per side and new ÷ old. With BENCH_PG_ADMIN_URL set (e.g.
 * postgres://postgres@127.0.0.1:5432/postgres) every run gets a fresh PostgreSQL database as its
 * BENCH_DATABASE_URL, dropped after it: the two builds may be at different schema versions.
 * BENCH_OLD_ENV and BENCH_NEW_ENV (`NAME=value` pairs separated by spaces) are added to one side's
 * environment only, and so reach its Parley child: with the same root on both sides they compare
 * two settings of one build, e.g. BENCH_NEW_ENV=PARLEY_OUTBOUND_CONNECTIONS_PER_KEY=48.
 * BENCH_COMPARE_VERBOSE=1 repeats every line each run printed under its pair's line.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createBenchDatabase } from './lib/pg-database.mjs';

/** What each bench prints, and whether a higher value is better. */
const FIGURES = {
  ingest: [
    { name: 'ratio to bare', re: /ratio parley\/bare: ([\d.]+)/, higher: true },
    { name: 'Parley p99 ms', re: /Parley p99 ([\d.]+) ms/, higher: false },
  ],
  im: [
    { name: 'ratio to bare', re: /ratio to bare: ([\d.]+)/, higher: true },
    { name: 'receipt p99 ms', re: /send -> socket receipt: p50 [\d.]+ ms, p99 ([\d.]+) ms/, higher: false },
    // BENCH_PRESEND=1 (a pre-send rule's cost) prints these instead of the two above.
    { name: 'pre-send with/without', re: /pre-send: throughput with\/without, median of rounds ([\d.]+)/, higher: true },
    { name: 'pre-send p99 added ms', re: /pre-send: send -> receipt p99 added, median of rounds (-?[\d.]+) ms/, higher: false },
    { name: 'pre-send CPU added µs', re: /pre-send: server CPU per send, median of rounds: .* added per check (-?[\d.]+) µs/, higher: false },
  ],
  callbacks: [
    { name: '(a) p99.9 ms', re: /^\(a\)[^\n]*p99\.9 ([\d.]+) ms/m, higher: false },
    { name: '(b) drain ratio', re: /\(b\) drain: Parley [\d.,]+\/s, raw undici [\d.,]+\/s, ratio ([\d.]+)/, higher: true },
    { name: '(c) p99 ms', re: /^\(c\)[^\n]*p99 ([\d.]+) ms/m, higher: false },
  ],
};

const [oldRoot, newRoot, bench, pairsArg] = process.argv.slice(2);
const figures = FIGURES[bench];
if (!oldRoot || !newRoot || !figures) {
  console.error(`usage: node bench/compare.mjs OLD_ROOT NEW_ROOT ${Object.keys(FIGURES).join('|')} [PAIRS]`);
  process.exit(2);
}
const pairs = Math.max(1, Number(pairsArg ?? 3));

/** `A=1 B=2` as an object (BENCH_OLD_ENV, BENCH_NEW_ENV). */
function sideEnv(raw) {
  const pairs = (raw ?? '').split(/\s+/).filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_OLD_ENV / BENCH_NEW_ENV: "${pair}" is not NAME=value`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
  return Object.fromEntries(pairs);
}
const SIDE_ENV = { old: sideEnv(process.env.BENCH_OLD_ENV), new: sideEnv(process.env.BENCH_NEW_ENV) };

async function run(side) {
  const root = side === 'old' ? oldRoot : newRoot;
  const adminUrl = process.env.BENCH_PG_ADMIN_URL;
  const database = adminUrl ? await createBenchDatabase(adminUrl) : undefined;
  try {
    // bench:callbacks reads DATABASE_URL (its drain runs in the bench process), the others BENCH_DATABASE_URL.
    const env = { ...process.env, ...SIDE_ENV[side], ...(database ? { BENCH_DATABASE_URL: database.url, ...(bench === 'callbacks' ? { DATABASE_URL: database.url } : {}) } : {}) };
    return await runIn(root, env);
  } finally {
    await database?.drop();
  }
}

function runIn(root, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bench', `${bench}.mjs`)], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${root}: bench ${bench} exited with ${code}`))));
  });
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const results = { old: [], new: [] };
for (let i = 0; i < pairs; i++) {
  const order = i % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
  for (const side of order) {
    const out = await run(side);
    const row = Object.fromEntries(figures.map((f) => [f.name, Number(f.re.exec(out)?.[1] ?? NaN)]));
    results[side].push(row);
    const speed = /machine speed (\d+) ms/.exec(out)?.[1];
    console.log(`pair ${i + 1} ${side.padEnd(3)} ${figures.map((f) => `${f.name} ${row[f.name]}`).join(', ')}${speed ? ` (machine speed ${speed} ms)` : ''}`);
    // The bench's CPU per record (steadier than its rates on a shared machine), as it printed it.
    // BENCH_COMPARE_VERBOSE=1: everything the bench printed (e.g. the pre-send rounds' CPU by thread).
    for (const line of out.split('\n')) if (line.includes('CPU per record') || (process.env.BENCH_COMPARE_VERBOSE === '1' && line.trim())) console.log(`    ${line}`);
  }
}

console.log(`\n${bench}: medians of ${pairs} alternating pairs (old ${oldRoot}${process.env.BENCH_OLD_ENV ? ` with ${process.env.BENCH_OLD_ENV}` : ''}, new ${newRoot}${process.env.BENCH_NEW_ENV ? ` with ${process.env.BENCH_NEW_ENV}` : ''})`);
for (const f of figures) {
  const o = median(results.old.map((r) => r[f.name]).filter(Number.isFinite));
  const n = median(results.new.map((r) => r[f.name]).filter(Number.isFinite));
  if (!Number.isFinite(o) || !Number.isFinite(n)) {
    console.log(`${f.name.padEnd(16)} not printed by this run`);
    continue;
  }
  const change = f.higher ? n / o : o / n;
  console.log(`${f.name.padEnd(16)} old ${o}  new ${n}  new is ${(change * 100).toFixed(1)} % of old (${f.higher ? 'higher' : 'lower'} is better)`);
}
