/**
 * The agents and the customer's server of `BENCH_EVENTS=1` (bench:ingest), in a process of its
 * own: an action's start is taken when its request is made, not when the load generator's busy
 * event loop lets the bench process get to it. Set up with `{ setup }` (Parley's base URL, the
 * tenant, the association, the agents' tokens, the interval), it takes one step every interval
 * between 'start' and 'stop': one agent (in turn) lists its conversations in progress and, on the
 * latest, types, replies, closes, then the customer's server rates it, each call timed (ms since
 * the epoch). 'stop' answers `{ stopped }`: the calls' starts since the last stop, per action, the
 * closes' spans, each call's time to its answer and the step counts.
 */
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { json } from './instance.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

let config;
let actions;
let closes;
const stats = { steps: 0, idle: 0, errors: 0, lastError: '' };
let running = false;
let loop = Promise.resolve();

/** Each call's time from its start to its answer, ms, per call. */
let durations;

function clear() {
  actions = { typing: [], close: [], rating: [], reply: [] };
  closes = [];
  durations = { list: [], typing: [], reply: [], close: [], rating: [] };
}

const api = (method, url, token, body) => json(config.base, method, url, token, body);

async function timed(name, call) {
  const start = now();
  const result = await call();
  const end = now();
  durations[name].push(end - start);
  return { start, end, result };
}

/** The signed ratings call of the customer's server (contract 6.4). */
function rating(customer, conversationId, seq) {
  const { association, tenantId } = config;
  const path = `/api/tenants/${tenantId}/rest/channels/${association.channelId}/ratings`;
  const body = JSON.stringify({ from: customer, conversation_id: conversationId, score: 1 + (seq % 5), comment: 'bench' });
  const signature = signSendMessage(association.clientSecret, { method: 'POST', path, expires: -1, body });
  const headers = { 'content-type': 'application/json', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(association.clientId, signature) };
  return async () => {
    const res = await fetch(`${config.base}${path}`, { method: 'POST', headers, body });
    if (res.status !== 200) throw new Error(`rating: ${res.status} ${await res.text()}`);
  };
}

async function step(agent) {
  const t = config.tenantId;
  const { result: list } = await timed('list', () => api('GET', `/api/tenants/${t}/conversations?mine=true&state=processing&limit=1`, agent.token));
  const conv = list.entities[0];
  if (!conv) return void stats.idle++;
  const base = `/api/tenants/${t}/conversations/${conv.id}`;
  const typing = await timed('typing', () => api('POST', `${base}/typing`, agent.token));
  actions.typing.push([conv.id, typing.start]);
  const reply = await timed('reply', () => api('POST', `${base}/messages`, agent.token, { bodies: [{ type: 'txt', msg: 'On it' }] }));
  actions.reply.push([reply.result.entity.msg_id, reply.start]);
  const close = await timed('close', () => api('POST', `${base}/close`, agent.token));
  actions.close.push([conv.id, close.start]);
  closes.push({ agent: agent.nickname, start: close.start, end: close.end });
  const rated = await timed('rating', rating(conv.visitor.customer_id, conv.id, stats.steps));
  actions.rating.push([conv.id, rated.start]);
  stats.steps++;
}

function start() {
  running = true;
  loop = (async () => {
    let next = now();
    for (let k = 0; running; k++) {
      await step(config.agents[k % config.agents.length]).catch((error) => {
        stats.errors++;
        stats.lastError = String(error.message ?? error);
      });
      next += config.intervalMs;
      const wait = next - now();
      if (wait > 0) await sleep(wait);
      else next = now();
    }
  })();
}

process.on('message', async (message) => {
  if (message.setup) {
    config = message.setup;
    clear();
    process.send({ ready: true });
  } else if (message === 'start') {
    start();
  } else if (message === 'stop') {
    running = false;
    await loop;
    process.send({ stopped: { actions, closes, stats, durations } });
    clear();
  }
});
process.on('disconnect', () => process.exit(0));
