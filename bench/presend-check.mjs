#!/usr/bin/env node
/**
 * The main thread's own CPU time per pre-send check (contract 6.5), in process, for one or more
 * built checkouts, alternating:
 *
 *   node bench/presend-check.mjs ROOT [ROOT...]
 *
 * Each ROOT's built `PresendCheck` (packages/server/dist) reviews one-message sends of a typical
 * bench:im text message under one rule, 64 at a time, with an outbound sender that answers
 * `{"valid":true}` at once: what is measured is building the record, signing it, the deadline,
 * reading the answer and the metrics, not the hand-off to the outbound thread nor the HTTP
 * exchange. BENCH_CHECKS (40,000) checks per round, BENCH_ROUNDS (6) rounds per root, the roots
 * taking turns; the first round is a warm-up. Prints each root's median CPU µs per check.
 *
 * BENCH_SENDER=thread: each root's own threaded outbound sender (its worker thread) posts the
 * checks to a pre-send receiver in a process of its own (receiver-process.mjs `presend`, answering
 * `{"valid":true}` about 1 ms later), so the hand-off to the outbound thread and back, and what the
 * root does there, count too. It then prints each root's median CPU µs per check of the main thread
 * and of all threads of this process (Linux /proc; the other root's worker idles meanwhile).
 * BENCH_CHECKS defaults to 4,000 in that mode.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineSpeedMs, startReceiverProcess, threadCpuSeconds } from './lib/load.mjs';

const roots = process.argv.slice(2).map((r) => path.resolve(r));
if (roots.length === 0) {
  console.error('usage: node bench/presend-check.mjs ROOT [ROOT...]');
  process.exit(2);
}
const THREAD = process.env.BENCH_SENDER === 'thread';
const CHECKS = Number(process.env.BENCH_CHECKS ?? (THREAD ? 4_000 : 40_000));
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 6));

const rule = {
  id: 1, appId: 'a', name: 'bench', url: 'http://127.0.0.1:9/presend', timeoutMs: 200, onFailure: 'reject',
  chatTypes: ['chat', 'groupchat'], messageTypes: ['txt', 'img', 'loc', 'audio', 'video', 'file', 'custom', 'cmd'],
  secret: '0123456789abcdef0123456789abcdef', createdAt: 0, updatedAt: 0,
};
const app = { id: 'a', appkey: 'org#app' };
let n = 0;
const message = () => ({
  appId: 'a', msgId: String(1e12 + n++), from: 'sender', to: 'receiver', chatType: 'chat', source: 'rest', timestamp: Date.now(),
  payload: { bodies: [{ type: 'txt', msg: 'hello' }], ext: { sent_at: Date.now() + 0.125, phase: 2, m: 1 } },
});

const receiver = THREAD ? await startReceiverProcess('presend') : undefined;
if (receiver) Object.assign(rule, { url: receiver.url, timeoutMs: 1000 });

async function senderOf(root) {
  if (!receiver) return { post: async () => ({ status: 200, body: '{"valid":true}', bodyTruncated: false, latencyMs: 1 }) };
  const { ThreadedOutboundSender } = await import(pathToFileURL(path.join(root, 'packages/server/dist/modules/outbound/threaded.js')).href);
  const sender = new ThreadedOutboundSender({ allowPrivate: true });
  await sender.warmUp();
  return sender;
}

async function checkOf(root) {
  const dist = pathToFileURL(path.join(root, 'packages/server/dist/modules/callbacks/presend/')).href;
  const { PresendCheck } = await import(`${dist}check.js`);
  const { promPresendMetrics } = await import(`${dist}metrics.js`);
  const { Registry } = createRequire(path.join(root, 'packages/server/package.json'))('prom-client');
  const outbound = await senderOf(root);
  return new PresendCheck({ rules: async () => [rule] }, outbound, { now: () => Date.now() }, promPresendMetrics(new Registry()));
}

console.log(`presend-check: ${CHECKS} checks per round, ${ROUNDS} rounds per root; machine speed ${machineSpeedMs()} ms (bench/lib: lower is faster)`);
const checks = await Promise.all(roots.map(checkOf));
const perCheck = roots.map(() => []);
const mainPerCheck = roots.map(() => []);
const mainSeconds = () => threadCpuSeconds(process.pid).get(process.pid) ?? 0;
let refused = 0;
// 64 checks at a time; with the thread, 64 lanes each starting its next check when one ends (bench:im's 64 senders).
const runRound = async (check) => {
  if (!THREAD) {
    for (let k = 0; k < CHECKS; k += 64) await Promise.all(Array.from({ length: 64 }, () => check.review(app, [message()])));
    return;
  }
  await Promise.all(Array.from({ length: 64 }, async (_, lane) => {
    for (let k = lane; k < CHECKS; k += 64) await check.review(app, [message()]).catch(() => refused++);
  }));
};
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, check] of checks.entries()) {
    const before = process.cpuUsage();
    const main0 = mainSeconds();
    await runRound(check);
    const used = process.cpuUsage(before);
    const main = mainSeconds() - main0;
    if (round > 0) perCheck[i].push((used.user + used.system) / CHECKS);
    if (round > 0) mainPerCheck[i].push((main * 1e6) / CHECKS);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [i, root] of roots.entries()) {
  const main = THREAD ? `; main thread ${median(mainPerCheck[i]).toFixed(1)} µs (${mainPerCheck[i].map((v) => v.toFixed(1)).join(' ')})` : '';
  console.log(`${root}: ${median(perCheck[i]).toFixed(2)} µs CPU per check (median of ${perCheck[i].length} rounds: ${perCheck[i].map((v) => v.toFixed(1)).join(' ')})${main}`);
}
if (receiver) {
  console.log(`pre-send receiver: ${receiver.count()} checks answered; ${refused} refused (no answer within the rule's ${rule.timeoutMs} ms)`);
  await receiver.close();
}
process.exit(0);
