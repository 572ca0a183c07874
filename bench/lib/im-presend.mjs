/**
 * The cost of a pre-send rule (contract 6.5) in bench:im's REST part (BENCH_PRESEND=1).
 *
 * One Parley child, one JSON-socket receiver, one closed loop of REST one-to-one sends (the same
 * load as the REST part) and one pre-send receiver in a process of its own that answers
 * `{"valid":true}` about 1 ms after each request (receiver-process.mjs `presend`). The rule
 * (`on_failure: reject`, so a failed check shows as a refused send, never as a quick one; its
 * `timeout_ms` is the default 200 unless BENCH_PRESEND_TIMEOUT_MS) is
 * created and deleted between phases: BENCH_PRESEND_ROUNDS (3) rounds of one phase without and one
 * with it, the order flipping each round, each phase BENCH_WARMUP_SECONDS then BENCH_SECONDS
 * measured. A message carries its phase and whether it was sent in the measured part in `ext`;
 * the socket receiver turns `ext.sent_at` into send → receipt latency per phase.
 */
import { performance } from 'node:perf_hooks';
import { closedLoop, cpuSeconds, openImSocket, startReceiverProcess, summarise, threadCpuSeconds, threadSplit } from './load.mjs';

const now = () => performance.timeOrigin + performance.now();
const RULE = 'bench_presend';

async function call(origin, method, p, token, body) {
  const res = await fetch(`${origin}${p}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** @param {{ pid: number, port: number, origin: string, base: string, admin: string, connections: number, seconds: number, warmupSeconds: number }} opts */
export async function benchPresend({ pid, port, origin, base, admin, connections, seconds, warmupSeconds }) {
  const rounds = Math.max(1, Number(process.env.BENCH_PRESEND_ROUNDS ?? 3));
  const timeoutMs = process.env.BENCH_PRESEND_TIMEOUT_MS ? Number(process.env.BENCH_PRESEND_TIMEOUT_MS) : undefined;
  const receiver = await startReceiverProcess('presend');
  await call(origin, 'POST', `${base}/users`, admin, [{ username: 'sender', password: 'pw-sender' }, { username: 'receiver', password: 'pw-receiver' }]);
  const userToken = (await call(origin, 'POST', `${base}/token`, undefined, { grant_type: 'password', username: 'receiver', password: 'pw-receiver' })).access_token;

  const latencies = new Map();
  const received = new Map();
  let phase = 0;
  let measuring = 0;
  const ws = await openImSocket(port, base, userToken);
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    const ext = frame.payload?.ext;
    if (frame.op !== 'message' || ext?.phase === undefined) return;
    received.set(ext.phase, (received.get(ext.phase) ?? 0) + 1);
    if (ext.m === 1) latencies.get(ext.phase)?.push(now() - ext.sent_at);
  });
  await new Promise((r) => setTimeout(r, 300));

  const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
  const loop = closedLoop({
    origin,
    connections,
    request: () => ({
      path: `${base}/messages/users`,
      headers,
      body: JSON.stringify({ from: 'sender', to: ['receiver'], type: 'txt', body: { msg: 'hello' }, ext: { sent_at: now(), phase, m: measuring } }),
    }),
  });

  const runPhase = async (withRule) => {
    if (withRule) await call(origin, 'POST', `${base}/callbacks/presend-rules`, admin, { name: RULE, url: receiver.url, on_failure: 'reject', ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) });
    phase++;
    latencies.set(phase, []);
    const calls0 = receiver.count();
    const cpu0 = cpuSeconds(pid);
    const threads0 = threadCpuSeconds(pid);
    const receiverCpu0 = cpuSeconds(receiver.pid);
    const benchCpu0 = process.cpuUsage();
    measuring = 0;
    const warm = await loop.phase(warmupSeconds * 1000, false);
    measuring = 1;
    const r = await loop.phase(seconds * 1000, true);
    measuring = 0;
    // Let the last accepted messages arrive, then stop checking.
    await new Promise((res) => setTimeout(res, 1000));
    const cpu1 = cpuSeconds(pid);
    const threads1 = threadCpuSeconds(pid);
    const receiverCpu1 = cpuSeconds(receiver.pid);
    const benchCpu = process.cpuUsage(benchCpu0);
    if (withRule) await call(origin, 'DELETE', `${base}/callbacks/presend-rules/${RULE}`, admin);
    const http = summarise(r.latencies);
    const receipt = summarise(latencies.get(phase));
    const sends = warm.done + r.done;
    const perSend = (seconds) => (seconds === undefined ? undefined : (seconds / sends) * 1e6);
    const split = threadSplit(pid, threads0, threads1);
    return {
      withRule,
      // Sends Parley accepted (200): a refused send (a check that failed under on_failure reject) or an error is not throughput.
      rate: (r.requests - r.unexpected - r.errors) / r.seconds,
      requests: r.requests,
      errors: r.errors,
      unexpected: r.unexpected,
      http,
      receipt,
      calls: receiver.count() - calls0,
      received: received.get(phase) ?? 0,
      latencies: latencies.get(phase),
      // Warm-up, measured part and the tail: everything the server did for this phase's sends.
      cpuPerMessageUs: cpu0 === undefined || cpu1 === undefined ? undefined : perSend(cpu1 - cpu0),
      // The server's main thread, its busiest other thread (the outbound worker while the rule is on) and the rest.
      threadsUs: threads1.size ? { main: perSend(split.main), busiest: perSend(split.busiest), rest: perSend(split.rest) } : undefined,
      // Who else might limit the loop: the pre-send receiver and this process (the closed loop and the socket receiver).
      receiverCpuUs: receiverCpu0 === undefined || receiverCpu1 === undefined ? undefined : perSend(receiverCpu1 - receiverCpu0),
      benchCpuUs: perSend((benchCpu.user + benchCpu.system) / 1e6),
    };
  };

  const results = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? [false, true] : [true, false];
      const pair = {};
      for (const withRule of order) pair[withRule ? 'with' : 'without'] = await runPhase(withRule);
      results.push(pair);
    }
  } finally {
    await loop.close();
    ws.close();
    await receiver.close();
  }
  return results;
}
