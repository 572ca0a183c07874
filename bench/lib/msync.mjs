/**
 * The msync parts of `npm run bench:im`, against a Parley child process already up:
 *   - idle: BENCH_MSYNC_IDLE (10,000) msync connections logged in (20 users, 500 resources each),
 *     the server's resident memory before and after, per connection; then held for
 *     BENCH_MSYNC_HOLD_SECONDS (95, past the 90 s idle timeout) with an UNREAD heartbeat every 30 s
 *     on each, and counted still open;
 *   - latency: one-to-one sends at BENCH_RATE (2,000) messages/s for BENCH_WARMUP_SECONDS (not
 *     measured) then BENCH_SECONDS, msync to msync and JSON socket to JSON socket, send-to-receipt
 *     p50/p99 (open loop: sends are not paced by acks; the msync receiver pulls on each NOTICE and
 *     pulls again with the cursor until isLast, as the SDK does).
 * The msync client here is the client side of Parley's own codec (dist), not the Easemob SDK:
 * thousands of SDK instances in one process would measure the SDK.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { clientCodec, decodeFrame, decodeMessageBody } from '../../packages/server/dist/modules/im/msync/codec.js';
import { fromKeyValues, toKeyValues } from '../../packages/server/dist/modules/im/msync/key-values.js';
import { Command, MessageType, Namespace } from '../../packages/server/dist/modules/im/msync/schema.js';
import { openImSocket, summarise } from './load.mjs';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb * 1024;
}

/** A logged-in msync connection; `onMeta` gets every pulled message (it pulls on NOTICE itself). */
export function msyncConnect(port, appKey, user, token, resource, onMeta) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  let provisioned;
  const ready = new Promise((resolve, reject) => {
    provisioned = resolve;
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  ws.on('message', (data) => {
    const frame = decodeFrame(new Uint8Array(data));
    if (frame.command === Command.PROVISION) return provisioned();
    if (frame.command === Command.NOTICE) {
      const { queue } = clientCodec.decodeNotice(frame.payload);
      ws.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ queue })));
      return;
    }
    if (frame.command !== Command.SYNC) return;
    const down = clientCodec.decodeSyncDown(frame.payload);
    if (!down.queue) return;
    for (const meta of down.metas ?? []) onMeta?.(meta);
    if (!down.isLast) ws.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ queue: down.queue, key: down.nextKey })));
  });
  ws.once('open', () => ws.send(clientCodec.frame(Command.PROVISION, { guid: { appKey, name: user }, auth: `$t$${token}` }, clientCodec.provision({ osType: 16, resource }))));
  return ready.then(() => ws);
}

export async function benchIdle({ port, pid, appKey, tokens, count, holdSeconds }) {
  const before = rssBytes(pid);
  const sockets = [];
  const users = Object.keys(tokens);
  for (let i = 0; i < count; i += 200) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 200); j++) {
      const user = users[j % users.length];
      batch.push(msyncConnect(port, appKey, user, tokens[user], `idle_${j}`));
    }
    sockets.push(...(await Promise.all(batch)));
  }
  for (const ws of sockets) ws.send(clientCodec.frame(Command.UNREAD, {}));
  await sleep(2000);
  const after = rssBytes(pid);
  let closed = 0;
  for (const ws of sockets) ws.once('close', () => closed++);
  const heartbeat = setInterval(() => {
    for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send(clientCodec.frame(Command.UNREAD, {}));
  }, 30_000);
  await sleep(holdSeconds * 1000);
  clearInterval(heartbeat);
  const open = sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length;
  for (const ws of sockets) ws.terminate();
  return { count, perConnection: (after - before) / count, before, after, open, closed, holdSeconds };
}

/**
 * Send-to-receipt latencies of the messages sent from `warmupSeconds` on: `stamp()` gives a send
 * time (and counts the measured sends), `note(sentAt)` takes each message received; `received`
 * counts them all.
 */
function receipts(warmupSeconds) {
  const latencies = [];
  let measureFrom = Infinity;
  return {
    latencies,
    received: 0,
    measured: 0,
    start() {
      measureFrom = now() + warmupSeconds * 1000;
    },
    stamp() {
      const at = now();
      if (at >= measureFrom) this.measured++;
      return at;
    },
    note(sentAt) {
      this.received++;
      if (sentAt >= measureFrom) latencies.push(now() - sentAt);
    },
  };
}

/** Sends at `rate` per second for `seconds` with `send(i)`; resolves when the last is sent. */
async function paced(rate, seconds, send) {
  const tickMs = 10;
  const perTick = rate / (1000 / tickMs);
  const total = Math.round(rate * seconds);
  const start = now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - start) / tickMs + 1) * perTick));
    while (sent < due) send(sent++);
    await sleep(tickMs);
  }
  return total;
}

export async function benchMsyncLatency({ port, appKey, tokens, rate, seconds, warmupSeconds = 0 }) {
  const r = receipts(warmupSeconds);
  await msyncConnect(port, appKey, 'receiver', tokens.receiver, 'lat_rx', (meta) => {
    const body = decodeMessageBody(meta.payload);
    const sentAt = fromKeyValues(body.ext).sent_at;
    if (typeof sentAt === 'number') r.note(sentAt);
  }).then((ws) => ws.send(clientCodec.frame(Command.UNREAD, {})));
  const sender = await msyncConnect(port, appKey, 'sender', tokens.sender, 'lat_tx');
  await sleep(300);
  const to = { appKey, name: 'receiver', domain: 'easemob.com' };
  r.start();
  const total = await paced(rate, warmupSeconds + seconds, (i) => {
    const body = clientCodec.messageBody({ type: MessageType.CHAT, to, contents: [{ type: 0, text: 'hello' }], ext: toKeyValues({ sent_at: r.stamp() }) });
    sender.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ meta: { id: String(i + 1), to, ns: Namespace.CHAT, payload: body } })));
  });
  await waitCount(r, total);
  sender.terminate();
  return { total: r.measured, received: r.received, receipt: summarise(r.latencies) };
}

export async function benchJsonLatency({ port, base, tokens, rate, seconds, warmupSeconds = 0 }) {
  const r = receipts(warmupSeconds);
  const open = (token) => openImSocket(port, base, token);
  const rx = await open(tokens.receiver);
  rx.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.op === 'message' && typeof frame.payload?.ext?.sent_at === 'number') r.note(frame.payload.ext.sent_at);
  });
  const tx = await open(tokens.sender);
  await sleep(300);
  r.start();
  const total = await paced(rate, warmupSeconds + seconds, (i) =>
    tx.send(JSON.stringify({ op: 'send', id: `b${i}`, chat_type: 'chat', to: 'receiver', bodies: [{ type: 'txt', msg: 'hello' }], ext: { sent_at: r.stamp() } })),
  );
  await waitCount(r, total);
  rx.terminate();
  tx.terminate();
  return { total: r.measured, received: r.received, receipt: summarise(r.latencies) };
}

async function waitCount(r, total) {
  const deadline = Date.now() + 15_000;
  while (r.received < total && Date.now() < deadline) await sleep(50);
}
