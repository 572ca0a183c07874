/**
 * History and conversation-list reads for bench:im: BENCH_HISTORY_MESSAGES one-to-one messages
 * (default 20,000) among BENCH_HISTORY_USERS users (default 200), sent over REST (one request
 * carries a sender's message to up to 100 receivers), then BENCH_READS (500) sequential reads of
 * each kind by random users: a history page of 20 (`messageroaming`) and a conversation list of 50.
 */
import { summarise } from './load.mjs';

async function call(origin, method, p, token, body) {
  const res = await fetch(`${origin}${p}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function benchReads({ origin, base, admin }) {
  const total = Number(process.env.BENCH_HISTORY_MESSAGES ?? 20_000);
  const userCount = Number(process.env.BENCH_HISTORY_USERS ?? 200);
  const reads = Number(process.env.BENCH_READS ?? 500);
  const users = Array.from({ length: userCount }, (_, i) => `h${i}`);
  for (let i = 0; i < users.length; i += 100) {
    await call(origin, 'POST', `${base}/users`, admin, users.slice(i, i + 100).map((username) => ({ username, password: 'pw-bench-1' })));
  }
  const fanOut = Math.min(100, userCount - 1);
  let sent = 0;
  for (let round = 0; sent < total; round++) {
    const from = users[round % userCount];
    const to = [];
    for (let k = 1; k <= fanOut && sent + to.length < total; k++) to.push(users[(round + k) % userCount]);
    await call(origin, 'POST', `${base}/messages/users`, admin, { from, to, type: 'txt', body: { msg: `m${round}` } });
    sent += to.length;
  }
  const pick = () => users[Math.floor(Math.random() * userCount)];
  const history = [];
  const lists = [];
  for (let i = 0; i < reads; i++) {
    const me = pick();
    let peer = pick();
    if (peer === me) peer = users[(users.indexOf(me) + 1) % userCount];
    history.push(await timed(() => call(origin, 'POST', `${base}/users/${me}/messageroaming`, admin, { queue: `${peer}@easemob.com`, start: -1, pull_number: 20 })));
    lists.push(await timed(() => call(origin, 'GET', `${base}/sdk/user/${me}/user_channels/list?limit=50`, admin)));
  }
  return { messages: sent, users: userCount, history: summarise(history), list: summarise(lists) };
}
