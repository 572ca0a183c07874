/**
 * `npm run bench:scale`: post-send callback throughput of one Parley instance and of two, on
 * PostgreSQL and Redis (issue 7), with what it costs those two.
 *
 * For each run: a fresh PostgreSQL database; N REST messages (alice → bob, one `chat` rule) are
 * accepted by instances started with PARLEY_WORKERS=false, so fan-out and callback jobs pile up
 * in the jobs table; those are stopped, then 1 or 2 instances with workers start and drain the
 * backlog into a bare receiver. Throughput = callbacks / drain time. Costs during the drain:
 * PostgreSQL transactions and row writes (pg_stat_database of the bench database), Redis commands
 * (INFO stats of the server; shared with anything else using it), CPU seconds of the instances.
 *
 * Needs PostgreSQL (PARLEY_BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and
 * Redis (PARLEY_BENCH_REDIS_URL, default redis://127.0.0.1:6379). Knobs: BENCH_MESSAGES (20000).
 *
 * Then the take-over time over BENCH_TAKEOVER_KILLS (5; 0 skips it) kills -9 of one of two
 * instances mid-delivery (bench/lib/takeover.mjs).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Pool } from 'undici';
import { imAppWithRule, startInstance } from './lib/instance.mjs';
import { fmt, startReceiver } from './lib/load.mjs';
import { measureTakeOver } from './lib/takeover.mjs';
import { createBenchDatabase } from './lib/pg-database.mjs';

const PG_URL = process.env.PARLEY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.PARLEY_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);

async function pgStats(db) {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const { rows } = await c.query('SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched FROM pg_stat_database WHERE datname = $1', [db]);
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
  } finally {
    await c.end();
  }
}

async function redisCommands(redis) {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

async function run(instances) {
  const database = await createBenchDatabase(PG_URL);
  const dbName = database.name;
  const dbUrl = database.url;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-scale-'));
  const prefix = `pbench:${randomBytes(4).toString('hex')}:`;
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: dbUrl,
    REDIS_URL,
    PARLEY_REDIS_PREFIX: prefix,
    PARLEY_SECRET_KEY: randomBytes(32).toString('hex'),
    PARLEY_ADMIN_USERNAME: 'bench',
    PARLEY_ADMIN_PASSWORD: 'bench-password',
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    PARLEY_IM_RATE_LIMIT: '1000000',
    PARLEY_IM_USER_SEND_RATE_LIMIT: '1000000',
    PARLEY_SEED_DEMO: 'false',
  };
  const receiver = await startReceiver('count');
  const redis = new Redis(REDIS_URL);
  try {
    // Accept the messages with workers off: the backlog is the benchmark's input.
    const intake = await startInstance({ ...env, PARLEY_WORKERS: 'false' });
    const { base, token } = await imAppWithRule(intake.origin, 'scale', receiver.url);
    const pool = new Pool(intake.origin, { connections: 32 });
    const body = JSON.stringify({ from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'scale benchmark' } });
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next++ < MESSAGES) {
        const res = await pool.request({ path: `${base}/messages/users`, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`send: ${res.statusCode}`);
      }
    }));
    await pool.close();
    await intake.stop();

    const pgBefore = await pgStats(dbName);
    const redisBefore = await redisCommands(redis);
    const started = performance.now();
    const workers = await Promise.all(Array.from({ length: instances }, () => startInstance(env)));
    const startedAll = performance.now();
    while (receiver.count() < MESSAGES) {
      if (performance.now() - started > 600_000) throw new Error(`only ${receiver.count()} of ${MESSAGES} delivered`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - startedAll) / 1000;
    const cpu = workers.reduce((sum, w) => sum + w.cpuSeconds(), 0);
    const pgAfter = await pgStats(dbName);
    const redisAfter = await redisCommands(redis);
    await Promise.all(workers.map((w) => w.stop()));
    const per1k = (n) => fmt((n / MESSAGES) * 1000, 0);
    const d = (k) => pgAfter[k] - pgBefore[k];
    console.log(
      `${instances} instance${instances > 1 ? 's' : ''}: ${MESSAGES} callbacks in ${fmt(seconds, 2)} s = ${fmt(MESSAGES / seconds, 0)}/s; ` +
        `per 1,000 callbacks: PostgreSQL ${per1k(d('xact_commit'))} commits, ${per1k(d('tup_inserted'))} rows inserted, ${per1k(d('tup_updated'))} updated, ${per1k(d('tup_deleted'))} deleted; ` +
        `Redis ${per1k(redisAfter - redisBefore)} commands; instance CPU ${fmt((cpu / MESSAGES) * 1000, 2)} s (incl. start-up)`,
    );
    return MESSAGES / seconds;
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await receiver.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`bench:scale on ${os.cpus().length} cores, PostgreSQL + Redis, ${MESSAGES} messages each run`);
const one = await run(1);
const two = await run(2);
console.log(`two instances / one: ${fmt(two / one, 2)}x`);
if (process.env.BENCH_TAKEOVER_KILLS !== '0') {
  const kills = Number(process.env.BENCH_TAKEOVER_KILLS ?? 5);
  console.log(`take-over: kill -9 of one of two instances mid-delivery (receiver answering in 300 ms), ${kills} times`);
  await measureTakeOver({ pgUrl: PG_URL, redisUrl: REDIS_URL, kills });
}
