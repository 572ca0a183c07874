/**
 * Parley's CPU per conversation event, written and pushed: `node bench/event-cost.mjs [N]` (1000).
 *
 * One Parley (this build's dist), one tenant, two associations, each with a skill group of its own
 * and no agents, so every customer's first message opens a waiting conversation. N new customers
 * send once on the association listing no events, then N new customers on the one listing
 * `queued` (one event, so one push, per message), 16 requests at a time; a receiver in this
 * process answers the pushes. The server's CPU time (user + system, /proc) of each phase, the
 * second until its N pushes arrived; the CPU per event is their difference over N: the event's
 * write (the association's setting, its place in the line, the wait estimate, the delivery and its
 * job) and its push (claim, delivery read, association, signature, HTTP, attempt record, delete).
 * Compare two builds by running it from each root in turn (under `flock /tmp/bench.lock`).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { json, startInstance } from './lib/instance.mjs';

const N = Number(process.argv[2] ?? 1000);
const CONCURRENCY = 16;

let arrived = 0;
let waiter;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.end('ok');
    arrived++;
    if (waiter && arrived >= waiter.count) waiter.resolve();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${receiver.address().port}/hook`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-event-cost-'));
const parley = await startInstance({
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  HOST: '127.0.0.1',
  PARLEY_ADMIN_USERNAME: 'bench',
  PARLEY_ADMIN_PASSWORD: 'bench-password',
  PARLEY_SEED_DEMO: 'false',
  PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
  PARLEY_CHANNEL_RATE_LIMIT: '1000000',
  PARLEY_API_RATE_LIMIT: '1000000',
});
const origin = parley.origin;
const root = (await json(origin, 'POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
const admin = { username: 'bench-admin@example.com', password: 'bench-admin-pw', nickname: 'Bench' };
const tenantId = (await json(origin, 'POST', '/api/tenants', root, { name: 'Bench', edition: 'flagship', admin })).entity.tenantId;
const token = (await json(origin, 'POST', '/api/login', undefined, { username: admin.username, password: admin.password })).entity.access_token;

async function association(name, events) {
  const queueId = String((await json(origin, 'POST', `/api/tenants/${tenantId}/skill-groups`, token, { queue_name: name })).entity.queue_id);
  const created = (await json(origin, 'POST', `/api/tenants/${tenantId}/rest/channels`, token, { name, callback_url: hook, agent_queue_id: queueId })).entity;
  await json(origin, 'PUT', `/api/tenants/${tenantId}/rest/channels/${created.channelId}`, token, { events });
  return created;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function send(assoc, from) {
  const body = JSON.stringify({ bodies: [{ type: 'txt', msg: 'hello' }], ext: {}, msg_id: randomUUID(), origin_type: 'rest', from, timestamp: Date.now() });
  const signature = signSendMessage(assoc.clientSecret, { method: 'POST', path: assoc.postMessageUrl, expires: -1, body });
  const headers = { 'content-type': 'application/json', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(assoc.clientId, signature) };
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${assoc.postMessageUrl}`, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`send-message answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** N first messages on `assoc`; then, if `pushes`, until that many pushes arrived in all. */
async function phase(assoc, prefix, pushes) {
  const cpuBefore = parley.cpuSeconds();
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < N) await send(assoc, `${prefix}-${next++}`);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const sent = performance.now();
  if (pushes) await new Promise((resolve) => ((waiter = { count: pushes, resolve }), arrived >= pushes && resolve()));
  return { cpuSeconds: parley.cpuSeconds() - cpuBefore, sendMs: Math.round(sent - start), drainMs: Math.round(performance.now() - sent) };
}

try {
  const quiet = await association('no events', []);
  const listed = await association('queued', ['queued']);
  await phase(quiet, 'warm-up', 0);
  const off = await phase(quiet, 'off', 0);
  const on = await phase(listed, 'on', N);
  const perEventUs = Math.round(((on.cpuSeconds - off.cpuSeconds) / N) * 1e6);
  console.log(`${N} first messages: without events ${off.cpuSeconds.toFixed(2)} s CPU (${off.sendMs} ms); with queued ${on.cpuSeconds.toFixed(2)} s CPU (${on.sendMs} ms, then ${on.drainMs} ms until the last push arrived)`);
  console.log(`CPU per event written and pushed: ${perEventUs} µs`);
  console.log(JSON.stringify({ n: N, off, on, perEventUs }));
} finally {
  await parley.stop();
  receiver.close();
  agent.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
