/**
 * `npm run bench:callbacks-store`: does a large exception store stall the server while it is
 * re-sent (issue 21, item 3)?
 *
 * 100,000 records (BENCH_RECORDS) of about 1 KB are stored under one date key of one app, written
 * straight through the callbacks repository while Parley is stopped (sending that many failing
 * callbacks first would take minutes and measure something else). Parley then runs from the build
 * as a child process (packages/server/dist/main.js), its rule pointing at a counting receiver in a
 * process of its own. The bench probes `GET /healthz` every BENCH_PROBE_MS (20) ms, open loop:
 * BENCH_BASELINE_SECONDS (15) before the re-send as a baseline, then BENCH_SECONDS (30) after
 * `POST …/callbacks/storage/retry`, with a page of the key's listing (`?limit=100`, walking the
 * cursor) read every 250 ms beside it. Target: `/healthz` p99 < 50 ms during the re-send.
 *
 * A fresh SQLite directory each time; DATABASE_URL=postgres://... uses PostgreSQL (a database of
 * its own: the bench adds an app and 100,000 rows to it). BENCH_RESEND_RATE sets
 * PARLEY_CALLBACK_RESEND_PER_SECOND (default: Parley's own, 200). BENCH_PROFILE=dir: CPU profiles
 * of Parley's runs there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { dateKey } from '../packages/protocol/dist/index.js';
import { recordsOf } from '../packages/server/dist/modules/callbacks/record.js';
import { secretBox } from '../packages/server/dist/kernel/secret-box.js';
import { kyselyCallbacksRepository } from '../packages/server/dist/storage/repositories/callbacks.js';
import { openStorage } from '../packages/server/dist/storage/index.js';
import { fmt, machineSpeedMs, startReceiverProcess, summarise } from './lib/load.mjs';
import { startParleyProcess } from './lib/parley-process.mjs';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BASELINE = Number(process.env.BENCH_BASELINE_SECONDS ?? 15);
const PROBE_MS = Number(process.env.BENCH_PROBE_MS ?? 20);
const RATE = process.env.BENCH_RESEND_RATE;

const ENV = {
  PARLEY_ADMIN_USERNAME: 'bench',
  PARLEY_ADMIN_PASSWORD: 'bench-password',
  PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
  PARLEY_IM_RATE_LIMIT: '1000000',
  PARLEY_IM_USER_SEND_RATE_LIMIT: '1000000',
  PARLEY_SEED_DEMO: 'false',
  ...(RATE ? { PARLEY_CALLBACK_RESEND_PER_SECOND: RATE } : {}),
};

/** An IM app with the callback service and the store on, and one rule to `url`. */
async function appWithRule(parley, url) {
  const root = (await parley.call('POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
  const name = `store${randomBytes(3).toString('hex')}`;
  const created = (await parley.call('POST', '/management/apps', root, { org_name: 'bench', app_name: name })).data;
  const base = `/bench/${name}`;
  const token = (await parley.call('POST', `${base}/token`, undefined, { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret })).access_token;
  await parley.call('PUT', `${base}/callbacks/service`, token, { enabled: true, store_failed: true });
  await parley.call('POST', `${base}/callbacks/rules`, token, { name: 'main', url, event_types: ['chat'] });
  const rule = (await parley.call('GET', `${base}/callbacks/rules/main`, token)).data;
  return { base, token, appId: created.application, appkey: `bench#${name}`, ruleName: rule.name };
}

/** Writes `count` records of about 1 KB under `key`, 500 to a statement, through the repository. */
async function fillStore(dataDir, app, ruleId, key) {
  const storage = await openStorage({ dataDir, databaseUrl: process.env.DATABASE_URL || undefined }, { now: () => Date.now() });
  try {
    const repo = kyselyCallbacksRepository(storage.db, secretBox(randomBytes(32)));
    const text = 'x'.repeat(800);
    const started = performance.now();
    for (let i = 0; i < RECORDS; i += 500) {
      const now = Date.now();
      const rows = [];
      for (let j = i; j < Math.min(RECORDS, i + 500); j++) {
        const [record] = recordsOf(
          { appId: app.appId, appkey: app.appkey, msgId: String(10_000_000 + j), from: 'alice', to: 'bob', chatType: 'chat', timestamp: now, payload: { bodies: [{ type: 'txt', msg: text }], ext: { n: j } }, source: 'rest', offlineReceivers: [] },
          () => `bench-${j}`,
        );
        rows.push({ appId: app.appId, dateKey: key, ruleId, ruleName: app.ruleName, record, eventType: 'chat', msgId: record.msg_id, lastError: 'HTTP 503' });
      }
      await storage.db.transaction().execute((trx) => repo.storeRecords(rows, now, trx));
    }
    console.log(`stored ${RECORDS} records under ${key} in ${fmt((performance.now() - started) / 1000)} s`);
  } finally {
    await storage.close();
  }
}

/** GET /healthz every PROBE_MS ms (open loop) until `stop()`; returns the latencies. */
function probeHealth(origin) {
  const pool = new Pool(origin, { connections: 8, pipelining: 1 });
  const latencies = [];
  let errors = 0;
  const inflight = new Set();
  const timer = setInterval(() => {
    const t0 = performance.now();
    const p = pool
      .request({ path: '/healthz', method: 'GET' })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - t0);
      })
      .catch(() => errors++)
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }, PROBE_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inflight);
      await pool.close();
      return { latencies, errors };
    },
  };
}

/** Reads the key's listing a page at a time, every 250 ms, following the cursor. */
function walkListing(parley, app, key) {
  const latencies = [];
  let cursor;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const page = await parley.call('GET', `${app.base}/callbacks/storage/${key}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, app.token);
      latencies.push(performance.now() - t0);
      cursor = page.cursor;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return { async stop() { stopped = true; await done; return latencies; } };
}

/**
 * Parley's own event-loop delay since the previous call, p99 and max in ms (prom-client's
 * histogram, which starts again at every scrape): a stall in the server, not in this process.
 */
async function loopDelay(origin) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const read = (name) => Number(new RegExp(`^parley_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1]) * 1000;
  return `event-loop delay p99 ${fmt(read('p99'))} ms, max ${fmt(read('max'))} ms`;
}

const line = (title, s, extra = '') =>
  console.log(`${title}: ${s.count} probes, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, max ${fmt(s.max)} ms${extra}`);

async function main() {
  console.log(`machine speed ${machineSpeedMs()} ms; ${os.cpus().length} cores; ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-store-'));
  const receiver = await startReceiverProcess();
  try {
    let parley = await startParleyProcess({ dataDir, env: ENV });
    const app = await appWithRule(parley, receiver.url);
    const key = dateKey(Date.now(), 'UTC');
    await parley.stop();
    const storage = await openStorage({ dataDir, databaseUrl: process.env.DATABASE_URL || undefined }, { now: () => Date.now() });
    const row = await storage.db.selectFrom('callback_rules').select('id').where('app_id', '=', app.appId).executeTakeFirstOrThrow();
    await storage.close();
    await fillStore(dataDir, app, Number(row.id), key);

    parley = await startParleyProcess({ dataDir, env: ENV });
    try {
      await loopDelay(parley.origin);
      const baselineProbe = probeHealth(parley.origin);
      await new Promise((r) => setTimeout(r, BASELINE * 1000));
      const baseline = await baselineProbe.stop();
      line('/healthz before the re-send', summarise(baseline.latencies), `; Parley's ${await loopDelay(parley.origin)}`);

      const duringProbe = probeHealth(parley.origin);
      const listing = walkListing(parley, app, key);
      const t0 = performance.now();
      const answer = await parley.call('POST', `${app.base}/callbacks/storage/retry`, app.token, { date: key });
      const answerMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const during = await duringProbe.stop();
      const pages = await listing.stop();
      const sent = receiver.count();
      const seconds = (performance.now() - t0) / 1000;
      console.log(`retry answered "${answer.data}" in ${fmt(answerMs)} ms; ${sent} records re-sent in ${fmt(seconds)} s (${fmt(sent / seconds)}/s)`);
      const s = summarise(during.latencies);
      line('/healthz during the re-send', s, `${during.errors ? `, ${during.errors} errors` : ''}; Parley's ${await loopDelay(parley.origin)}`);
      const l = summarise(pages);
      console.log(`listing page (limit 100) during the re-send: ${l.count} pages, p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms`);
      console.log(`target /healthz p99 < 50 ms during the re-send: ${s.p99 < 50 ? 'met' : 'NOT met'} (${fmt(s.p99)} ms)`);
    } finally {
      await parley.stop();
    }
  } finally {
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
