/**
 * The take-over part of `npm run bench:scale`: two instances on one fresh PostgreSQL database and
 * Redis deliver callbacks to a receiver that answers in 300 ms; one is killed with kill -9 in the
 * middle, `kills` times (a new victim each time, the same survivor). For each kill it prints the
 * take-over time (kill → the survivor released the victim's leased jobs, read from its
 * `parley_cluster_takeovers_total`), the time until every record had arrived, the victim's jobs
 * in flight at the kill (its /readyz just before) and the records received twice.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Pool } from 'undici';
import { imAppWithRule, startInstance } from './instance.mjs';
import { fmt } from './load.mjs';
import { createBenchDatabase } from './pg-database.mjs';

const RECEIVER_MS = 300;

/** Answers every callback after 300 ms; counts requests and distinct webhook-ids (callIds). */
async function slowReceiver() {
  const ids = new Set();
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      ids.add(String(req.headers['webhook-id']));
      setTimeout(() => { res.writeHead(200); res.end('ok'); }, RECEIVER_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/cb`,
    distinct: () => ids.size,
    requests: () => requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

async function metric(origin, name) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}

async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function measureTakeOver({ pgUrl, redisUrl, kills = 5, messagesPerKill = 400 }) {
  const database = await createBenchDatabase(pgUrl);
  const dbUrl = database.url;
  const db = new pg.Client({ connectionString: dbUrl });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-takeover-'));
  const prefix = `pbench:${randomBytes(4).toString('hex')}:`;
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl,
    PARLEY_REDIS_PREFIX: prefix,
    PARLEY_SECRET_KEY: randomBytes(32).toString('hex'),
    PARLEY_ADMIN_USERNAME: 'bench',
    PARLEY_ADMIN_PASSWORD: 'bench-password',
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    PARLEY_IM_RATE_LIMIT: '1000000',
    PARLEY_IM_USER_SEND_RATE_LIMIT: '1000000',
    // What a rule claims is what it has on the wire (32 and 32): the victim holds no queue of
    // unsent callbacks that would go out at the survivor's pace after the take-over.
    PARLEY_CALLBACK_RULE_CONCURRENCY: '32',
    PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: '32',
    PARLEY_SEED_DEMO: 'false',
  };
  const receiver = await slowReceiver();
  const instances = [];
  const results = [];
  try {
    const survivor = await startInstance(env);
    instances.push(survivor);
    await db.connect();
    const { base, token } = await imAppWithRule(survivor.origin, 'takeover', receiver.url);
    const body = JSON.stringify({ from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'take-over benchmark' } });

    for (let k = 1; k <= kills; k++) {
      const victim = await startInstance(env);
      instances.push(victim);
      const distinctBefore = receiver.distinct();
      const requestsBefore = receiver.requests();
      const pools = [new Pool(victim.origin, { connections: 16 }), new Pool(survivor.origin, { connections: 16 })];
      let next = 0;
      await Promise.all(Array.from({ length: 32 }, async (_, w) => {
        while (next++ < messagesPerKill) {
          const res = await pools[w % 2].request({ path: `${base}/messages/users`, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
          await res.body.dump();
          if (res.statusCode !== 200) throw new Error(`send: ${res.statusCode}`);
        }
      }));
      await Promise.all(pools.map((p) => p.close()));
      await until(() => receiver.distinct() - distinctBefore >= messagesPerKill / 4, 30_000, 'deliveries under way');
      const readiness = await (await fetch(`${victim.origin}/readyz`)).json();
      const inFlight = readiness.instances.find((i) => i.self).in_flight;
      const takeOversBefore = await metric(survivor.origin, 'parley_cluster_takeovers_total');
      const killedAt = Date.now();
      await victim.kill9();
      // Timed side by side: every record may have arrived once before the take-over.
      const delivered = until(() => receiver.distinct() - distinctBefore >= messagesPerKill, 60_000, 'every record').then(() => Date.now() - killedAt);
      await until(async () => (await metric(survivor.origin, 'parley_cluster_takeovers_total')) > takeOversBefore, 60_000, 'the take-over');
      const takeOverMs = Date.now() - killedAt;
      const deliveredMs = await delivered;
      await until(async () => Number((await db.query('SELECT COUNT(*) AS n FROM jobs')).rows[0].n) === 0, 60_000, 'the queue to drain');
      const duplicates = receiver.requests() - requestsBefore - (receiver.distinct() - distinctBefore);
      results.push({ takeOverMs, deliveredMs, inFlight, duplicates });
      console.log(
        `  kill ${k}: take-over ${takeOverMs} ms after the kill; every record delivered ${deliveredMs} ms after it; ` +
          `${inFlight} jobs in flight on the victim; ${duplicates} records received twice`,
      );
    }
  } finally {
    await Promise.all(instances.map((i) => (i.proc.exitCode === null && i.proc.signalCode === null ? i.stop() : undefined)));
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await receiver.close();
    await db.end().catch(() => undefined);
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = (key) => results.map((r) => r[key]).sort((a, b) => a - b);
  const median = (xs) => xs[Math.floor(xs.length / 2)];
  const takeOver = sorted('takeOverMs');
  const delivered = sorted('deliveredMs');
  console.log(
    `take-over over ${kills} kills: median ${fmt(median(takeOver) / 1000, 2)} s, max ${fmt(takeOver.at(-1) / 1000, 2)} s; ` +
      `every record delivered: median ${fmt(median(delivered) / 1000, 2)} s, max ${fmt(delivered.at(-1) / 1000, 2)} s after the kill; ` +
      `duplicates ${results.map((r) => r.duplicates).join(', ')} (jobs in flight on the victim: ${results.map((r) => r.inFlight).join(', ')})`,
  );
  return results;
}
