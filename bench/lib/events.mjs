/**
 * `BENCH_EVENTS=1` of bench:ingest: conversation events (contract 6.4) under the send-message load.
 *
 * `setUpEvents` makes, through `/api`, a skill group with BENCH_EVENTS_AGENTS agents (4) of
 * BENCH_EVENTS_SESSIONS open conversations each (5), signed in and set online, and points the
 * association (every event listed, that group as its queue) at a receiver in its own process
 * (events-receiver.mjs). The load's first messages then open conversations: `assigned` while an agent
 * has room, `queued` after. The driver, while the events-on rounds run, takes one step every
 * BENCH_EVENTS_INTERVAL_MS (250): one agent (in turn) lists its conversations in progress and, on
 * the latest, types, replies, closes, then the customer's server rates it, each call timed. The
 * driver runs in a process of its own (events-driver.mjs), as the receiver does: in the bench
 * process, beside the load generator, a call's start would be taken long before its request left
 * whenever the load's busy event loop held it up. A close
 * frees a slot: the dispatcher hands the head of the line to that agent (`assigned`), the first 100
 * behind it move up (`position_changed`); the customer's next message opens a new conversation
 * (`queued`).
 *
 * Each event's delay is its arrival at the receiver minus the start of the request that caused it
 * (`fromAction`): the typing, close or rating call of that conversation (typing → `agent_typing`,
 * close → `closed` and `csat_invitation`, rating → `csat_submitted`, reply → its push); for
 * `assigned` and `position_changed`, the close whose call was running when the event was stamped
 * (the close answers after the hand-out and its events are written), or for an `assigned` at once,
 * the customer's message; for `queued`, the customer's latest message sent before the event's
 * `timestamp`. Also arrival minus the event's own `timestamp` (`fromStamp`: the push path alone).
 */
import { fork } from 'node:child_process';
import { INTEGRATOR_EVENT_NAMES } from '@parley/protocol';
import { json } from './instance.mjs';
import { fmt, summarise } from './load.mjs';

const AGENTS = Number(process.env.BENCH_EVENTS_AGENTS ?? 4);
const SESSIONS = Number(process.env.BENCH_EVENTS_SESSIONS ?? 5);
const INTERVAL_MS = Number(process.env.BENCH_EVENTS_INTERVAL_MS ?? 250);
/** Send starts remembered per customer (each sends about every 1,000 ÷ rate seconds). */
const SENDS_KEPT = 8;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

/**
 * A helper script of this folder in a process of its own: `ask` sends a message and resolves with
 * the field `answer` of the first message back that has it; `close` ends the process.
 */
function helperProcess(file) {
  const child = fork(new URL(file, import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const answer = (key) => new Promise((resolve, reject) => {
    const on = (m) => {
      if (m[key] === undefined) return;
      child.off('message', on);
      child.off('error', reject);
      resolve(m[key]);
    };
    child.on('message', on);
    child.once('error', reject);
  });
  return {
    answer,
    ask: (message, key) => {
      const answered = answer(key);
      child.send(message);
      return answered;
    },
    send: (message) => child.send(message),
    close: () => new Promise((r) => {
      child.once('exit', r);
      child.disconnect();
    }),
  };
}

/** The receiver of the pushes (events-receiver.mjs): its URL, its records since the last dump. */
async function startEventsReceiver() {
  const helper = helperProcess('./events-receiver.mjs');
  const port = await helper.answer('port');
  return { url: `http://127.0.0.1:${port}/events`, dump: () => helper.ask('dump', 'records'), close: helper.close };
}

/** The agents' and the customer's server's calls, in a process of their own (events-driver.mjs). */
async function startDriver(setup) {
  const helper = helperProcess('./events-driver.mjs');
  await helper.ask({ setup }, 'ready');
  return helper;
}

/** `/api` of one Parley: JSON in and out, the whole answer back; throws on non-200. */
const apiOf = (base) => (method, url, token, body) => json(base, method, url, token, body);

/**
 * @param {{ base: string, admin: string, tenantId: number, association: any }} parley
 */
export async function setUpEvents(parley) {
  const api = apiOf(parley.base);
  const t = parley.tenantId;
  const { association } = parley;
  const receiver = await startEventsReceiver();
  const queueId = String((await api('POST', `/api/tenants/${t}/skill-groups`, parley.admin, { queue_name: 'events bench' })).entity.queue_id);
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const username = `events-agent${i}@example.com`;
    const body = { username, password: 'bench-agent-pw', nickname: `Agent ${i}`, role: 'agent', queue_ids: [queueId], max_sessions: SESSIONS };
    const id = (await api('POST', `/api/tenants/${t}/agents`, parley.admin, body)).entity.id;
    const token = (await api('POST', '/api/login', undefined, { username, password: 'bench-agent-pw' })).entity.access_token;
    await api('PUT', `/api/tenants/${t}/agents/${id}/status`, token, { status: 'online' });
    agents.push({ id, token, nickname: body.nickname });
  }
  await api('PUT', `/api/tenants/${t}/rest/channels/${association.channelId}`, parley.admin, { callback_url: receiver.url, agent_queue_id: queueId, events: [...INTEGRATOR_EVENT_NAMES] });

  const sends = new Map(); // customer -> recent send starts (ms since the epoch)
  const actions = { typing: new Map(), close: new Map(), rating: new Map(), reply: new Map() };
  const closes = []; // { agent nickname, start, end }, in start order
  const driver = await startDriver({ base: parley.base, tenantId: t, association, agents, intervalMs: INTERVAL_MS });
  let stats = { steps: 0, idle: 0, errors: 0, lastError: '' };
  const durations = { list: [], typing: [], reply: [], close: [], rating: [] };

  return {
    /** Called by the load for each send-message request it is about to make. */
    noteSend(customer) {
      let list = sends.get(customer);
      if (!list) sends.set(customer, (list = []));
      list.push(now());
      if (list.length > SENDS_KEPT) list.shift();
    },
    start() {
      driver.send('start');
    },
    async close() {
      await receiver.close();
      await driver.close();
    },
    /** Stops the driver and takes its calls' starts since the last stop. */
    async stop() {
      const stopped = await driver.ask('stop', 'stopped');
      for (const name of Object.keys(actions)) for (const [key, start] of stopped.actions[name]) actions[name].set(key, start);
      closes.push(...stopped.closes);
      for (const name of Object.keys(durations)) durations[name].push(...stopped.durations[name]);
      stats = stopped.stats;
    },
    /**
     * Delays (per event name, see `attribute`) of the pushes received since the last drain, once
     * the receiver has had none for half a second (so that what is still on its way counts here), or
     * after 60 s.
     */
    async drain() {
      const records = [];
      // At most 60 s: what has not arrived by then is left out (and the count shows it).
      for (const until = now() + 60_000; now() < until; ) {
        await sleep(500);
        const part = await receiver.dump();
        if (part.length === 0) break;
        for (const r of part) records.push(r);
      }
      return attribute(records, { sends, actions, closes });
    },
    get stats() {
      return stats;
    },
    /** Per driver call, p50 and p99 of its time from start to answer (ms). */
    callTimes() {
      return Object.fromEntries(Object.entries(durations).map(([name, list]) => {
        const s = summarise(list);
        return [name, { p50: Number(fmt(s.p50, 1)), p99: Number(fmt(s.p99, 1)) }];
      }));
    },
    settings: { agents: AGENTS, sessions: SESSIONS, intervalMs: INTERVAL_MS },
  };
}

/** Per event name (and `reply`): delays from the action and from the event's timestamp. */
function attribute(records, { sends, actions, closes }) {
  const rows = new Map();
  const add = (name, fromAction, fromStamp) => {
    if (!rows.has(name)) rows.set(name, { fromAction: [], fromStamp: [], unmatched: 0 });
    const row = rows.get(name);
    if (fromAction === undefined) row.unmatched++;
    else row.fromAction.push(fromAction);
    if (fromStamp !== undefined) row.fromStamp.push(fromStamp);
  };
  const closeAround = (stamp, agent) => closes.find((c) => c.start <= stamp + 1 && stamp <= c.end + 1 && (agent === undefined || c.agent === agent));
  const lastSend = (customer, stamp) => sends.get(customer)?.filter((s) => s <= stamp + 1).at(-1);
  for (const r of records) {
    if (r[0] === 'r') {
      const start = actions.reply.get(r[1]);
      add('reply', start === undefined ? undefined : r[3] - start, undefined);
      continue;
    }
    if (r[0] !== 'e') continue;
    const [, name, conversationId, to, stamp, agent, arrival] = r;
    let start;
    if (name === 'agent_typing') start = actions.typing.get(conversationId);
    else if (name === 'closed' || name === 'csat_invitation') start = actions.close.get(conversationId);
    else if (name === 'csat_submitted') start = actions.rating.get(conversationId);
    else if (name === 'position_changed') start = closeAround(stamp)?.start;
    else if (name === 'assigned') start = closeAround(stamp, agent)?.start ?? lastSend(to, stamp);
    else if (name === 'queued') start = lastSend(to, stamp);
    add(name, start === undefined ? undefined : arrival - start, arrival - stamp);
  }
  const out = {};
  for (const [name, row] of rows) {
    const a = summarise(row.fromAction);
    const s = summarise(row.fromStamp);
    out[name] = { count: row.fromAction.length + row.unmatched, unmatched: row.unmatched, fromAction: { p50: a.p50, p99: a.p99, max: a.max }, fromStamp: { p50: s.p50, p99: s.p99, max: s.max } };
  }
  return out;
}

/** Prints the per-event table of `collect()`'s result. */
export function printEvents(table) {
  const order = [...INTEGRATOR_EVENT_NAMES, 'reply'].filter((n) => table[n]);
  console.log('event              count   from the action: p50   p99     max ms | from its timestamp: p50   p99     max ms');
  for (const name of order) {
    const r = table[name];
    const cells = (d) => [d.p50, d.p99, d.max].map((v) => fmt(v, 1).padStart(7)).join(' ');
    console.log(`${name.padEnd(18)} ${String(r.count).padStart(6)}${r.unmatched ? ` (${r.unmatched} unmatched)` : ''}  ${cells(r.fromAction)}        | ${r.fromStamp.p50 === undefined || Number.isNaN(r.fromStamp.p50) ? '   (replies carry no timestamp)' : cells(r.fromStamp)}`);
  }
}
