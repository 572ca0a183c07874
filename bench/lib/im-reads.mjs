/**
 * History and conversation-list reads for bench:im, over BENCH_HISTORY_MESSAGES one-to-one messages
 * (default 20,000) among BENCH_HISTORY_USERS users (default 200), all sent through the REST API.
 *
 * Seeding. Two kinds of send, interleaved:
 *  - pairs: a thirtieth of the users are "hot" (at least 2); each hot user x sends one request to
 *    its partners x±1 … x±k (k ≤ 50) among the hot users, in BENCH_HISTORY_PAIR_ROUNDS (11)
 *    rounds: every hot pair then holds 2 × 11 = 22 messages, so its latest history page is full;
 *  - one-to-many: the rest as requests of up to 600 receivers each (Easemob's limit for
 *    `/messages/users`), sender r·7919 mod N to a window of receivers that moves by 600 each time:
 *    every user receives from about (M − pair messages) / N different senders, and a sender writes to 600.
 * BENCH_SEED_CONCURRENCY (4) requests are in flight. Each user's password is hashed with scrypt
 * (about 75 ms of CPU here, by design), so only the first BENCH_API_USERS (60, one batch) are
 * created through the API; the others are copies of the first one's row (same password hash)
 * written into the database before any message (BENCH_API_USERS=N creates all through the API).
 * Every receiver is offline, so the fan-out stores each message offline; the reads start once
 * `parley_im_offline_stored_total` has reached the number of messages sent.
 *
 * Reads: BENCH_READS_WARMUP (50, not counted) then BENCH_READS (500) sequential reads of each kind,
 * timed as HTTP round trips: a history page of 20 (`messageroaming`, the latest page) of a random
 * hot pair, and a conversation list of 50 (`user_channels/list`) of a random user.
 * Before the reads the data settles, as it has on a server in use: on PostgreSQL the tables are
 * analyzed (`VACUUM ANALYZE`, what autovacuum does soon after a bulk load, which otherwise runs
 * during the reads) and the load's dirty pages written (`CHECKPOINT`), and on either engine the
 * reads wait until the 1-minute load average is below 1.5 or 90 s have passed (BENCH_READS_SETTLE=0
 * skips both).
 * BENCH_READS_EXPLAIN=1 then prints the plans of their queries (im-reads-explain.mjs).
 * BENCH_READS_ROOTS=A,B (two or more built checkouts): after the seeding, the reads run on each
 * root's build in turn on the same data, A B … then … B A for BENCH_READS_ROUNDS (2) rounds, and are
 * reported per root: a change to the reads compared in one run.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Pool } from 'undici';
import { explainReads } from './im-reads-explain.mjs';
import { summarise } from './load.mjs';

const FAN_OUT_MAX = 600;
const USERS_PER_BATCH = 60;

async function call(origin, method, p, token, body) {
  const res = await fetch(`${origin}${p}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

/** The seed plan: which requests, in which order (see the header). */
export function seedPlan(total, userCount) {
  const users = Array.from({ length: userCount }, (_, i) => `h${i}`);
  const hot = Math.max(2, Math.floor(userCount / 30));
  const k = Math.max(1, Math.min(50, Math.floor((hot - 1) / 2)));
  const partnersOf = (x) => {
    const out = new Set();
    for (let d = 1; d <= k; d++) {
      out.add((x + d) % hot);
      out.add((x - d + hot) % hot);
    }
    out.delete(x);
    return [...out].map((i) => users[i]);
  };
  const perRound = hot * partnersOf(0).length;
  const rounds = Math.max(1, Math.min(Math.floor(total / perRound), Number(process.env.BENCH_HISTORY_PAIR_ROUNDS ?? 11)));
  const pairRequests = [];
  for (let r = 0; r < rounds; r++) for (let x = 0; x < hot; x++) pairRequests.push({ from: users[x], to: partnersOf(x) });
  const pairMessages = rounds * perRound;

  const fanOut = Math.min(FAN_OUT_MAX, userCount - 1);
  const broadcastRequests = [];
  let left = total - pairMessages;
  for (let r = 0; left > 0; r++) {
    const sender = (r * 7919) % userCount;
    const to = [];
    for (let j = 0; to.length < Math.min(fanOut, left); j++) {
      const i = (r * fanOut + j) % userCount;
      if (i !== sender) to.push(users[i]);
    }
    broadcastRequests.push({ from: users[sender], to });
    left -= to.length;
  }
  // Interleaved in proportion, so both kinds are spread over the msg_id range.
  const requests = [];
  const all = pairRequests.length + broadcastRequests.length;
  let b = 0;
  let p = 0;
  for (let i = 0; i < all; i++) {
    const wantB = Math.floor(((i + 1) * broadcastRequests.length) / all);
    if (b < wantB) requests.push(broadcastRequests[b++]);
    else requests.push(pairRequests[p++]);
  }
  const hotPairs = [];
  for (let x = 0; x < hot; x++) for (const peer of partnersOf(x)) hotPairs.push([users[x], peer]);
  const broadcasters = new Set(broadcastRequests.map((r) => r.from));
  return { users, requests, hot, k, rounds, perPair: 2 * rounds, pairMessages, broadcasts: broadcastRequests.length, broadcasters, fanOut, hotPairs };
}

/** Copies of the template user's row (same app, password hash) under the other names, straight into the database. */
async function cloneUsers(db, org, template, names) {
  if (names.length === 0) return;
  const now = Date.now();
  if (db.kind === 'sqlite') {
    const sqlite = new Database(db.file, { timeout: 30_000 });
    try {
      const appId = sqlite.prepare(`SELECT id FROM im_apps WHERE org_name = ? AND app_name = 'im'`).get(org).id;
      const hash = sqlite.prepare('SELECT password_hash FROM im_users WHERE app_id = ? AND username = ?').get(appId, template).password_hash;
      const insert = sqlite.prepare('INSERT INTO im_users (app_id, username, uuid, password_hash, nickname, created_at, modified_at) VALUES (?, ?, ?, ?, NULL, ?, ?)');
      sqlite.transaction(() => {
        for (const name of names) insert.run(appId, name, randomUUID(), hash, now, now);
      })();
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const appId = (await client.query(`SELECT id FROM im_apps WHERE org_name = $1 AND app_name = 'im'`, [org])).rows[0].id;
    const hash = (await client.query('SELECT password_hash FROM im_users WHERE app_id = $1 AND username = $2', [appId, template])).rows[0].password_hash;
    await client.query(
      'INSERT INTO im_users (app_id, username, uuid, password_hash, nickname, created_at, modified_at) SELECT $1::text, n, u, $3::text, NULL, $4::bigint, $4::bigint FROM unnest($2::text[], $5::text[]) AS t(n, u)',
      [appId, names, hash, now, names.map(() => randomUUID())],
    );
  } finally {
    await client.end();
  }
}

async function createUsers({ origin, base, admin, org, db }, users) {
  const viaApi = Math.min(users.length, Math.max(1, Number(process.env.BENCH_API_USERS ?? USERS_PER_BATCH)));
  for (let i = 0; i < viaApi; i += USERS_PER_BATCH) {
    const batch = users.slice(i, Math.min(viaApi, i + USERS_PER_BATCH));
    await call(origin, 'POST', `${base}/users`, admin, batch.map((username) => ({ username, password: 'pw-bench-1' })));
  }
  await cloneUsers(db, org, users[0], users.slice(viaApi));
  return viaApi;
}

async function offlineStored(origin) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const m = /^parley_im_offline_stored_total(?:\{[^}]*\})? ([\d.e+]+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

/** Sends the plan's requests, BENCH_SEED_CONCURRENCY at a time; then waits for the fan-out to store them all. */
async function seed(origin, base, admin, plan) {
  const concurrency = Math.max(1, Number(process.env.BENCH_SEED_CONCURRENCY ?? 4));
  const pool = new Pool(origin, { connections: concurrency, keepAliveTimeout: 30_000 });
  const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
  let next = 0;
  let sent = 0;
  let retried = 0;
  const started = performance.now();
  let reported = started;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < plan.requests.length) {
          const i = next++;
          const { from, to } = plan.requests[i];
          for (let attempt = 1; ; attempt++) {
            const res = await pool.request({ path: `${base}/messages/users`, method: 'POST', headers, body: JSON.stringify({ from, to, type: 'txt', body: { msg: `seed ${i}` } }) });
            const text = await res.body.text();
            if (res.statusCode === 200) break;
            // Every user exists: a 404 naming some of them is the server's user-existence cache
            // racing with itself (see the README); counted and sent again.
            if (res.statusCode === 404 && text.includes('service_resource_not_found') && attempt < 5) {
              retried++;
              continue;
            }
            throw new Error(`seed request ${i}: ${res.statusCode} ${text.slice(0, 300)}`);
          }
          sent += to.length;
          if (performance.now() - reported > 30_000) {
            reported = performance.now();
            console.error(`  seeding: ${sent} messages in ${Math.round((reported - started) / 1000)} s`);
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const sendSeconds = (performance.now() - started) / 1000;
  const deadline = performance.now() + 30 * 60_000;
  while ((await offlineStored(origin)) < sent) {
    if (performance.now() > deadline) throw new Error('the fan-out did not store every seeded message within 30 min');
    await new Promise((r) => setTimeout(r, 500));
  }
  return { sent, retried, sendSeconds, settledSeconds: (performance.now() - started) / 1000 };
}

async function timedReads(origin, base, admin, plan, reads, warmup) {
  const pick = (n) => Math.floor(Math.random() * n);
  const history = [];
  const lists = [];
  const listed = [];
  let historyRows = 0;
  let listRows = 0;
  for (let i = 0; i < warmup + reads; i++) {
    const [me, peer] = plan.hotPairs[pick(plan.hotPairs.length)];
    const lister = plan.users[pick(plan.users.length)];
    let t = performance.now();
    const page = await call(origin, 'POST', `${base}/users/${me}/messageroaming`, admin, { queue: `${peer}@easemob.com`, start: -1, pull_number: 20 });
    const historyMs = performance.now() - t;
    t = performance.now();
    const list = await call(origin, 'GET', `${base}/sdk/user/${lister}/user_channels/list?limit=50`, admin);
    const listMs = performance.now() - t;
    if (i < warmup) continue;
    history.push(historyMs);
    lists.push(listMs);
    listed.push({ ms: listMs, user: lister });
    historyRows += page.data?.msgs?.length ?? 0;
    listRows += list.data?.channel_infos?.length ?? 0;
  }
  return { history, lists, listed, historyRows, listRows };
}

/** The kind of user a list was read for, from the seed plan: hot (pairs), a one-to-many sender, or neither. */
function userKind(plan, user) {
  if (Number(user.slice(1)) < plan.hot) return 'hot';
  return plan.broadcasters.has(user) ? 'one-to-many sender' : 'other';
}

/** The slowest lists' users by kind, and each kind's share of all reads: is the tail one kind of user? */
function tailOf(plan, listed) {
  const reads = listed.map((x) => ({ ...x, kind: userKind(plan, x.user) })).sort((a, b) => b.ms - a.ms);
  const slowest = reads.slice(0, Math.max(5, Math.ceil(reads.length / 50)));
  const count = (xs) => Object.fromEntries(xs.reduce((acc, x) => acc.set(x.kind, (acc.get(x.kind) ?? 0) + 1), new Map()));
  const p50 = new Map();
  for (const kind of ['hot', 'one-to-many sender', 'other']) {
    const ms = reads.filter((x) => x.kind === kind).map((x) => x.ms);
    if (ms.length > 0) p50.set(kind, summarise(ms).p50);
  }
  return { slowest, slowestByKind: count(slowest), allByKind: count(reads), p50ByKind: Object.fromEntries(p50) };
}

/** The settling before the reads (see the header): what it took, and the load average it ended at. */
async function settleData(db) {
  const started = performance.now();
  if (db.kind === 'pg') {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('VACUUM ANALYZE');
      await client.query('CHECKPOINT');
    } finally {
      await client.end();
    }
  }
  const analyzedSeconds = (performance.now() - started) / 1000;
  while (os.loadavg()[0] >= 1.5 && performance.now() - started < 90_000) await new Promise((r) => setTimeout(r, 1000));
  return { analyzedSeconds, seconds: (performance.now() - started) / 1000, load: os.loadavg()[0] };
}

/**
 * Seeds (see the header), then times the reads in each of `passes` in turn: a pass's `start()`
 * may restart the server on the same data (another build, or with the profiler) and return its
 * origin. Figures are pooled by the pass's label.
 * @param {{ origin: string, base: string, admin: string, org: string, db: { kind: 'sqlite', file: string } | { kind: 'pg', url: string },
 *           passes?: Array<{ label: string, start?: () => Promise<string> }> }} opts
 */
export async function benchReads(opts) {
  const total = Number(process.env.BENCH_HISTORY_MESSAGES ?? 20_000);
  const userCount = Number(process.env.BENCH_HISTORY_USERS ?? 200);
  const reads = Number(process.env.BENCH_READS ?? 500);
  const warmup = Number(process.env.BENCH_READS_WARMUP ?? 50);
  const plan = seedPlan(total, userCount);
  const usersStarted = performance.now();
  const viaApi = await createUsers(opts, plan.users);
  const usersSeconds = (performance.now() - usersStarted) / 1000;
  const seeded = await seed(opts.origin, opts.base, opts.admin, plan);
  const settle = process.env.BENCH_READS_SETTLE === '0' ? undefined : await settleData(opts.db);
  const { base, admin } = opts;

  const byLabel = new Map();
  for (const pass of opts.passes ?? [{ label: 'this build' }]) {
    const origin = (await pass.start?.()) ?? opts.origin;
    const r = await timedReads(origin, base, admin, plan, reads, warmup);
    const acc = byLabel.get(pass.label) ?? { history: [], lists: [], listed: [], historyRows: 0, listRows: 0, passes: [] };
    acc.history.push(...r.history);
    acc.lists.push(...r.lists);
    acc.listed.push(...r.listed);
    acc.historyRows += r.historyRows;
    acc.listRows += r.listRows;
    acc.passes.push({ history: summarise(r.history), list: summarise(r.lists) });
    byLabel.set(pass.label, acc);
  }
  const explain = process.env.BENCH_READS_EXPLAIN === '1' ? await explainReads(opts.db, opts.org, { me: plan.hotPairs[0][0], peer: plan.hotPairs[0][1], lister: plan.users[0] }) : undefined;
  return {
    explain,
    messages: seeded.sent,
    users: userCount,
    usersViaApi: viaApi,
    usersSeconds,
    plan: { hot: plan.hot, pairs: plan.hotPairs.length / 2, perPair: plan.perPair, pairMessages: plan.pairMessages, broadcasts: plan.broadcasts, fanOut: plan.fanOut, requests: plan.requests.length },
    sendSeconds: seeded.sendSeconds,
    retried: seeded.retried,
    settledSeconds: seeded.settledSeconds,
    settle,
    results: [...byLabel].map(([label, acc]) => ({
      label,
      history: summarise(acc.history),
      list: summarise(acc.lists),
      listTail: tailOf(plan, acc.listed),
      historyRowsPerRead: acc.historyRows / acc.history.length,
      listRowsPerRead: acc.listRows / acc.lists.length,
      passes: acc.passes,
    })),
  };
}
