#!/usr/bin/env node
/**
 * npm run bench:inbox — the agent inbox of a tenant with BENCH_CONVERSATIONS (100,000)
 * conversations: the latency (p50, p99, max) of the conversation list in each view, the inbox
 * counts, and the searches (message text, label, customer), each asked BENCH_REQUESTS (200) times
 * one after the other by a tenant admin or an agent (a case stops after BENCH_CASE_SECONDS, 30, once
 * it has made 20 requests: a slow search would take the whole run).
 *
 * The installation is made by the service (migrations, a tenant with 4 skill groups, 20 agents and
 * an association, through the API); the conversations are then written straight into the database
 * while the service is stopped (sending 100,000 conversations through the API would take the
 * bench's whole time): 25,000 customers, two text messages per conversation (the customer's and the
 * agent's), 1 in 10 conversations labelled, 1 in 100 mentioning "kettle"; the newest 500 waiting,
 * the 2,500 before them in progress, the rest closed. BENCH_DATABASE_URL=postgres://… (a database
 * this bench may create databases beside; a fresh one is made and dropped) runs it on PostgreSQL,
 * else SQLite. Prints `machine speed` and the load average next to the figures; BENCH_OUT writes
 * the JSON result there. On a build with the search's background indexer, the cases start once it
 * has read the seeded messages (it prints how long that took).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fmt, machineSpeedMs, summarise } from './lib/load.mjs';
import { startParleyProcess } from './lib/parley-process.mjs';
import { createBenchDatabase } from './lib/pg-database.mjs';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
/** A case stops after this long even if it has not made REQUESTS requests (at least 20): a slow search would take the whole run. */
const CASE_SECONDS = Number(process.env.BENCH_CASE_SECONDS ?? 30);
const CUSTOMERS = Math.min(25_000, CONVERSATIONS);
const WAITING = 500;
const PROCESSING = 2_500;
const AGENTS = 20;
const PG_URL = process.env.BENCH_DATABASE_URL;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-inbox-'));
const baseEnv = {
  PARLEY_ADMIN_USERNAME: 'bench',
  PARLEY_ADMIN_PASSWORD: 'bench-password',
  PARLEY_SEED_DEMO: 'false',
  PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
  PARLEY_API_RATE_LIMIT: '1000000',
  // The seeded backlog is indexed in seconds, not at the service's default pace (250 messages a run).
  PARLEY_SEARCH_INDEX_BATCH: process.env.PARLEY_SEARCH_INDEX_BATCH ?? '20000',
};

/** The tenant, its skill groups, agents and association, made through the API. */
async function setUp(parley) {
  const root = (await parley.call('POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
  const tenant = (await parley.call('POST', '/api/tenants', root, { name: 'Inbox bench', edition: 'flagship', admin: { username: 'inbox-admin@example.com', password: 'bench-admin-pw', nickname: 'Admin' } })).entity;
  const t = tenant.tenantId;
  const admin = (await parley.call('POST', '/api/login', undefined, { username: 'inbox-admin@example.com', password: 'bench-admin-pw' })).entity.access_token;
  const queues = [];
  for (const name of ['sales', 'billing', 'returns', 'vip desk']) queues.push(Number((await parley.call('POST', `/api/tenants/${t}/skill-groups`, admin, { queue_name: name })).entity.queue_id));
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const body = { username: `inbox-agent${i}@example.com`, password: 'bench-agent-pw', nickname: `Agent ${i}`, role: 'agent', queue_ids: [String(queues[i % 4]), String(queues[(i + 1) % 4])], max_sessions: 500 };
    agents.push((await parley.call('POST', `/api/tenants/${t}/agents`, admin, body)).entity.id);
  }
  const association = (await parley.call('POST', `/api/tenants/${t}/rest/channels`, admin, { name: 'bench', callback_url: 'http://127.0.0.1:9/hook' })).entity;
  return { tenantId: t, channelId: association.channelId, queues, agents };
}

const WORDS = ['order', 'parcel', 'invoice', 'refund', 'delivery', 'size', 'colour', 'discount', 'address', 'payment'];
const LABELS = ['refund', 'late', 'damaged', 'upsell', 'priority'];

/** Row i of each table (i = 0 … CONVERSATIONS-1, oldest first); ids are given explicitly, after `offsets`. */
function rows(world, offsets, base) {
  const visitors = [];
  for (let c = 0; c < CUSTOMERS; c++) {
    const tags = c % 20 === 0 ? ['vip'] : [];
    visitors.push([offsets.visitor + c + 1, world.channelId, `customer-${c}`, JSON.stringify({ user_nickname: `Customer ${c}` }), JSON.stringify(tags), base, base]);
  }
  const conversations = [];
  const messages = [];
  const labels = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    const id = offsets.conversation + i + 1;
    const customer = i % CUSTOMERS;
    const fromEnd = CONVERSATIONS - i;
    const state = fromEnd <= WAITING ? 'waiting' : fromEnd <= WAITING + PROCESSING ? 'processing' : 'closed';
    const agent = state === 'waiting' ? null : world.agents[i % AGENTS];
    const created = base + i * 20_000;
    const updated = created + 60_000;
    const messageId = offsets.message + 2 * i + 1;
    conversations.push([id, world.tenantId, world.channelId, offsets.visitor + customer + 1, `customer-${customer}`, state, world.queues[i % 4], agent, customer % 20 === 0 ? 1 : 0, created, created, updated, state === 'closed' ? updated : null, state === 'waiting' ? messageId : messageId + 1]);
    const text = `${i % 100 === 7 ? 'Is the kettle' : `My ${WORDS[i % WORDS.length]}`} number ${i} needs help`;
    messages.push([messageId, id, world.channelId, 'customer', `bench-${i}-c`, null, JSON.stringify([{ type: 'txt', msg: text }]), '{}', created, created]);
    if (state !== 'waiting') messages.push([messageId + 1, id, world.channelId, 'agent', `bench-${i}-a`, agent, JSON.stringify([{ type: 'txt', msg: `Thank you, we are on it (${i})` }]), '{}', updated, updated]);
    if (i % 10 === 3) labels.push([id, world.tenantId, LABELS[i % LABELS.length]]);
  }
  return { visitors, conversations, messages, labels };
}

const COLUMNS = {
  channel_visitors: ['id', 'channel_id', 'customer_id', 'profile', 'tags', 'created_at', 'updated_at'],
  conversations: ['id', 'tenant_id', 'channel_id', 'visitor_id', 'customer_id', 'state', 'queue_id', 'agent_id', 'vip', 'queued_at', 'created_at', 'updated_at', 'closed_at', 'last_message_id'],
  channel_messages: ['id', 'conversation_id', 'channel_id', 'direction', 'msg_id', 'agent_id', 'bodies', 'ext', 'timestamp', 'created_at'],
  conversation_labels: ['conversation_id', 'tenant_id', 'label'],
};
const TABLES = [
  ['channel_visitors', 'visitors'],
  ['conversations', 'conversations'],
  ['channel_messages', 'messages'],
  ['conversation_labels', 'labels'],
];

async function seedSqlite(world) {
  const db = new Database(path.join(dataDir, 'parley.db'));
  db.pragma('journal_mode = WAL');
  const max = (table) => db.prepare(`SELECT COALESCE(MAX(id), 0) AS n FROM ${table}`).get().n;
  const data = rows(world, { visitor: max('channel_visitors'), conversation: max('conversations'), message: max('channel_messages') }, Date.now() - CONVERSATIONS * 20_000 - 3_600_000);
  db.transaction(() => {
    for (const [table, key] of TABLES) {
      const insert = db.prepare(`INSERT INTO ${table} (${COLUMNS[table].join(', ')}) VALUES (${COLUMNS[table].map(() => '?').join(', ')})`);
      for (const row of data[key]) insert.run(...row);
    }
  })();
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function seedPostgres(world, url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const max = async (table) => Number((await client.query(`SELECT COALESCE(MAX(id), 0) AS n FROM ${table}`)).rows[0].n);
  const data = rows(world, { visitor: await max('channel_visitors'), conversation: await max('conversations'), message: await max('channel_messages') }, Date.now() - CONVERSATIONS * 20_000 - 3_600_000);
  await client.query('BEGIN');
  for (const [table, key] of TABLES) {
    const columns = COLUMNS[table];
    for (let at = 0; at < data[key].length; at += 1000) {
      const chunk = data[key].slice(at, at + 1000);
      const values = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
      await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`, chunk.flat());
    }
    if (table !== 'conversation_labels') await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT MAX(id) FROM ${table}))`);
  }
  await client.query('COMMIT');
  await client.query('ANALYZE');
  await client.end();
}

/**
 * Waits until the conversation search's background indexer has read every seeded message (its
 * watermark, `indexed_to` of `channel_message_fts_state` (SQLite) or `channel_message_text_state`, reaches the last message id); seconds taken, or
 * null on a build without the indexer. The searches are measured on the index, not on the catch-up.
 */
async function waitForIndexer(pgUrl) {
  const started = performance.now();
  const sqlite = pgUrl ? undefined : new Database(path.join(dataDir, 'parley.db'), { readonly: true });
  const client = pgUrl ? new pg.Client({ connectionString: pgUrl }) : undefined;
  await client?.connect();
  const read = async (query) => (sqlite ? sqlite.prepare(query).get() : (await client.query(query)).rows[0]);
  const table = pgUrl ? 'channel_message_text_state' : 'channel_message_fts_state';
  try {
    const exists = await read(pgUrl ? `SELECT to_regclass('${table}') IS NOT NULL AS n` : `SELECT COUNT(*) AS n FROM sqlite_master WHERE name = '${table}'`);
    if (!exists?.n) return null;
    for (;;) {
      const row = await read(`SELECT COALESCE((SELECT indexed_to FROM ${table}), 0) AS mark, (SELECT MAX(id) FROM channel_messages) AS last`);
      if (Number(row.mark) >= Number(row.last)) return (performance.now() - started) / 1000;
      if (performance.now() - started > 600_000) throw new Error(`the text index did not catch up in 10 minutes (${row.mark} of ${row.last})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    sqlite?.close();
    await client?.end();
  }
}

/** REQUESTS sequential GETs of `url` (fewer, at least 20, once CASE_SECONDS have passed); latencies in ms. */
async function measure(parley, token, url, requests = REQUESTS) {
  const latencies = [];
  let size = 0;
  const until = performance.now() + CASE_SECONDS * 1000;
  for (let i = 0; i < requests && (i < 20 || performance.now() < until); i++) {
    const started = performance.now();
    const res = await fetch(`${parley.origin}${url}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    latencies.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body}`);
    size = body.length;
  }
  return { ...summarise(latencies), bytes: size };
}

async function main() {
  const pgDatabase = PG_URL ? await createBenchDatabase(PG_URL) : undefined;
  const env = { ...baseEnv, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) };
  if (pgDatabase) process.env.DATABASE_URL = pgDatabase.url;
  const engine = pgDatabase ? 'PostgreSQL' : 'SQLite';
  console.log(`${CONVERSATIONS} conversations on ${engine}; machine speed ${machineSpeedMs()} ms (bench/lib: lower is faster)`);
  let parley = await startParleyProcess({ dataDir, env });
  try {
    const world = await setUp(parley);
    await parley.stop();
    const started = performance.now();
    if (pgDatabase) await seedPostgres(world, pgDatabase.url);
    else await seedSqlite(world);
    console.log(`seeded in ${fmt((performance.now() - started) / 1000)} s`);
    parley = await startParleyProcess({ dataDir, env });
    const caughtUp = await waitForIndexer(pgDatabase?.url);
    if (caughtUp !== null) console.log(`text index caught up with the seeded messages in ${fmt(caughtUp)} s`);
    const login = async (username, password) => (await parley.call('POST', '/api/login', undefined, { username, password })).entity.access_token;
    const admin = await login('inbox-admin@example.com', 'bench-admin-pw');
    const agent = await login('inbox-agent0@example.com', 'bench-agent-pw');
    const list = `/api/tenants/${world.tenantId}/conversations`;
    const cases = [
      ['list: waiting, queue order (admin)', admin, `${list}?state=waiting&limit=100`],
      ['list: waiting, longest waiting (agent)', agent, `${list}?state=waiting&sort=longest_waiting&limit=100`],
      ['list: mine in progress (agent)', agent, `${list}?state=processing&mine=true&limit=100`],
      ['list: team in progress (admin)', admin, `${list}?state=processing&team=true&limit=100`],
      ['list: every state, latest (admin)', admin, `${list}?limit=20`],
      ['list: closed, newest (admin)', admin, `${list}?state=closed&sort=newest&limit=20`],
      ['list: closed, latest (admin, the history page)', admin, `${list}?state=closed&limit=20`],
      ['counts (admin)', admin, `${list}/counts`],
      ['counts (agent)', agent, `${list}/counts`],
      ['search: text "kettle", 1 in 100 (admin)', admin, `${list}?q=kettle&limit=20`],
      ['search: text "kettle" in the waiting view (agent)', agent, `${list}?state=waiting&q=kettle&limit=100`],
      ['search: label "late" (admin)', admin, `${list}?label=late&limit=20`],
      ['search: customer (admin)', admin, `${list}?customer=customer-4242&limit=20`],
      ['search: text found nowhere (admin)', admin, `${list}?q=zebra-unicorn&limit=20`],
    ];
    const results = [];
    for (const [name, token, url] of cases) {
      await measure(parley, token, url, 3); // warm-up
      const r = await measure(parley, token, url);
      const load = os.loadavg()[0];
      results.push({ name, url, requests: r.count, p50Ms: Number(fmt(r.p50, 2)), p99Ms: Number(fmt(r.p99, 2)), maxMs: Number(fmt(r.max, 2)), bytes: r.bytes, loadAverage: Number(fmt(load, 2)) });
      console.log(`${name.padEnd(52)} n ${String(r.count).padStart(3)}  p50 ${fmt(r.p50, 2).padStart(8)} ms  p99 ${fmt(r.p99, 2).padStart(8)} ms  max ${fmt(r.max, 2).padStart(8)} ms  load average ${fmt(load, 2)}`);
    }
    const result = { engine, conversations: CONVERSATIONS, indexCatchUpSeconds: caughtUp, requests: REQUESTS, machineSpeedMs: machineSpeedMs(), loadAverage: os.loadavg(), results };
    if (process.env.BENCH_OUT) fs.writeFileSync(process.env.BENCH_OUT, JSON.stringify(result, null, 2));
  } finally {
    await parley.stop();
    await pgDatabase?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});
