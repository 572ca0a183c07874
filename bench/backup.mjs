#!/usr/bin/env node
/**
 * npm run bench:backup — an SQLite installation holding BENCH_MESSAGES stored IM messages
 * (1,000,000), then:
 *   1. `npm run admin -- copy-to <postgres-url>` of it (service stopped) into a fresh PostgreSQL
 *      database, timed;
 *   2. `npm run admin -- backup <file>` while the send-message load of bench:ingest (signed
 *      requests at BENCH_CONNECTIONS connections, 64) runs against the service on it: the backup's
 *      time, and the load's p99 before (BENCH_LOAD_SECONDS, 10) and during the backup.
 *
 * The installation is made by the service (migrations, an IM app, a tenant and an association
 * through the API); the messages are written straight into the SQLite file while the service is
 * stopped, since sending a million through the API would take the bench's whole time.
 * PostgreSQL: BENCH_PG_ADMIN_URL (else PARLEY_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres)
 * must be able to create and drop databases. BENCH_OUT writes the JSON result there.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { NODE_FLAGS } from '../packages/server/dist/node-flags.js';
import { closedLoop, fmt, freePort, machineSpeedMs, summarise } from './lib/load.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_JS = path.join(root, 'packages/server/dist/admin-cli.js');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-backup-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  PARLEY_ADMIN_USERNAME: 'bench',
  PARLEY_ADMIN_PASSWORD: 'bench-password',
  PARLEY_SEED_DEMO: 'false',
  PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
  PARLEY_CHANNEL_RATE_LIMIT: '1000000',
  LOG_LEVEL: 'warn',
};

/** Service processes still running, stopped if the bench fails. */
const children = new Set();

async function startParley() {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(root, 'packages/server/dist/main.js')], { env: { ...env, PORT: String(port) }, stdio: 'inherit' });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Parley exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error('Parley not ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')));
  return { base, stop };
}

async function api(base, method, url, token, body) {
  const res = await fetch(`${base}${url}`, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The tenant, association and IM app, made through the API. */
async function setUp(base) {
  const rootToken = (await api(base, 'POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
  const tenant = (await api(base, 'POST', '/api/tenants', rootToken, { name: 'Bench', edition: 'flagship', admin: { username: 'bench-admin@example.com', password: 'bench-admin-pw', nickname: 'Bench' } })).entity;
  const admin = (await api(base, 'POST', '/api/login', undefined, { username: 'bench-admin@example.com', password: 'bench-admin-pw' })).entity.access_token;
  const association = (await api(base, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, admin, { name: 'bench', callback_url: 'http://127.0.0.1:9/hook' })).entity;
  await api(base, 'POST', '/management/apps', rootToken, { org_name: 'bench', app_name: 'im' });
  return association;
}

/** MESSAGES stored IM messages (delivered, fan-out done), written straight into the file. */
function storeMessages() {
  const db = new Database(path.join(dataDir, 'parley.db'));
  db.pragma('journal_mode = WAL');
  const appId = db.prepare(`SELECT id FROM im_apps WHERE app_name = 'im'`).get().id;
  const insert = db.prepare(`INSERT INTO im_messages (app_id, msg_id, sender, receiver, chat_type, source, timestamp, payload, fanout_done) VALUES (?, ?, ?, ?, 'chat', 'rest', ?, ?, 1)`);
  const base = Date.now() - MESSAGES;
  const batch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const payload = JSON.stringify({ bodies: [{ type: 'txt', msg: `stored message number ${i} of the benchmark` }], ext: { n: i } });
      insert.run(appId, 1_300_000_000_000_000 + i, `user-${i % 1000}`, `user-${(i * 7) % 1000}`, base + i, payload);
    }
  });
  for (let at = 0; at < MESSAGES; at += 100_000) batch(at, Math.min(MESSAGES, at + 100_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function run(args) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [ADMIN_JS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

function makeRequest(association, seq) {
  const body = JSON.stringify({ bodies: [{ type: 'txt', msg: `benchmark message ${seq}` }], msg_id: randomUUID(), origin_type: 'rest', from: `bench-customer-${seq % 1000}`, timestamp: Date.now() });
  const signature = signSendMessage(association.clientSecret, { method: 'POST', path: association.postMessageUrl, expires: -1, body });
  return { path: association.postMessageUrl, body, headers: { 'content-type': 'application/json; utf-8', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(association.clientId, signature) } };
}

async function withDatabase(work) {
  const name = `parley_bench_${Date.now().toString(36)}`;
  const adminClient = new pg.Client({ connectionString: PG_ADMIN_URL });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminClient.end();
  }
}

async function main() {
  console.log(`${MESSAGES} stored IM messages; machine speed ${machineSpeedMs()} ms (bench/lib: lower is faster)`);
  const first = await startParley();
  const association = await setUp(first.base);
  await first.stop();
  let started = performance.now();
  storeMessages();
  console.log(`installation built in ${fmt((performance.now() - started) / 1000)} s (${fmt(fs.statSync(path.join(dataDir, 'parley.db')).size / 1e6)} MB)`);

  const copy = await withDatabase((url) => run(['copy-to', url]));
  if (copy.code !== 0) throw new Error(`copy-to failed: ${copy.stderr}`);
  console.log(`copy-to: ${fmt(copy.seconds)} s\n${copy.stdout.trim()}`);

  const service = await startParley();
  const loop = closedLoop({ origin: service.base, connections: CONNECTIONS, request: (seq) => makeRequest(association, seq) });
  const file = path.join(dataDir, '..', `${path.basename(dataDir)}.parley-backup`);
  try {
    await loop.phase(2000, false);
    const before = await loop.phase(LOAD_SECONDS * 1000, true);
    started = performance.now();
    const backupRun = run(['backup', file]);
    let finished = false;
    void backupRun.then(() => (finished = true));
    const during = { latencies: [], requests: 0, errors: 0, seconds: 0 };
    while (!finished) {
      const r = await loop.phase(500, true);
      during.latencies.push(...r.latencies);
      during.requests += r.requests;
      during.errors += r.errors + r.unexpected;
      during.seconds += r.seconds;
    }
    const backup = await backupRun;
    if (backup.code !== 0) throw new Error(`backup failed: ${backup.stderr}`);
    const result = {
      messages: MESSAGES,
      copyToSeconds: Number(fmt(copy.seconds, 1)),
      backupSeconds: Number(fmt(backup.seconds, 1)),
      backupBytes: fs.statSync(file).size,
      loadBefore: { rate: Math.round(before.requests / before.seconds), p99Ms: Number(fmt(summarise(before.latencies).p99, 2)), errors: before.errors + before.unexpected },
      loadDuringBackup: { rate: Math.round(during.requests / during.seconds), p99Ms: Number(fmt(summarise(during.latencies).p99, 2)), errors: during.errors },
    };
    console.log(JSON.stringify(result, null, 2));
    if (process.env.BENCH_OUT) fs.writeFileSync(process.env.BENCH_OUT, JSON.stringify(result, null, 2));
  } finally {
    await loop.close();
    await service.stop();
    fs.rmSync(file, { force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});
