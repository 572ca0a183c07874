/**
 * The ban rule, one table (ban-cases.ts) run against both implementations: the pure machine of
 * ban.ts and the Lua script of RedisBanStore on a real Redis (a key prefix of its own per run).
 * Time comes from the case, never from a clock of either side. Then what the table does not
 * describe: the duration vectors, the plain-data state.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  banDurationMs,
  expireBan,
  initialBanState,
  isBanned,
  observe,
  parseBanState,
  type BanEvent,
  type BanObservation,
  type BanState,
} from '../../src/modules/callbacks/ban.js';
import { CallbackEvents } from '../../src/modules/callbacks/events.js';
import type { CallbackRule } from '../../src/modules/callbacks/ports.js';
import { RedisBanStore } from '../../src/modules/callbacks/redis-bans.js';
import { loadCallbackVectors } from '../../../protocol/test/callback-vectors.js';
import { FakeClock } from '../helpers/clock.js';
import { BAN_CASES, MIN, type BanCase, type ExpectedBanEvent, type ExpectedBanState } from './ban-cases.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One rule, fresh, under one implementation of the rule. */
interface BanMachine {
  observe(kind: BanObservation, now: number): Promise<BanEvent[]>;
  expire(now: number): Promise<BanEvent[]>;
  state(now: number): Promise<BanState>;
}

function pureMachine(): BanMachine {
  let state = initialBanState();
  const step = (next: { state: BanState; events: BanEvent[] }) => {
    state = next.state;
    return next.events;
  };
  return {
    observe: async (kind, now) => step(observe(state, kind, now)),
    expire: async (now) => step(expireBan(state, now)),
    state: async () => state,
  };
}

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
const prefix = `ptest:ban:${randomBytes(4).toString('hex')}:`;
let ruleSeq = 0;

function redisMachine(): BanMachine {
  const events = new CallbackEvents();
  const store = new RedisBanStore({
    redis,
    prefix,
    repo: { saveBanState: async () => undefined },
    // Every call passes the case's time; one that fell back to this clock (1970) would fail its case.
    clock: new FakeClock(0),
    events,
    lookup: async () => undefined,
    onError: (error) => {
      throw error;
    },
  });
  const rule: CallbackRule = {
    id: ++ruleSeq,
    appId: 'app',
    name: 'main',
    url: 'http://127.0.0.1/cb',
    enabled: true,
    secret: 's',
    ban: initialBanState(),
    eventTypes: ['chat'],
    chatTypes: [],
    messageTypes: [],
    sources: [],
    createdAt: T0,
    updatedAt: T0,
  };
  let emitted: BanEvent[] = [];
  // The store's events carry the rule's reference; the machine's are the rest.
  events.on('rule.banned', ({ ruleId: _id, appId: _app, rule: _name, ...e }) => void emitted.push(e));
  events.on('rule.unbanned', ({ ruleId: _id, appId: _app, rule: _name, ...e }) => void emitted.push(e));
  const drain = () => {
    const out = emitted;
    emitted = [];
    return out;
  };
  return {
    observe: async (kind, now) => {
      await store.record(rule, kind, now);
      return drain();
    },
    expire: async (now) => {
      await store.stateOf(rule, now);
      return drain();
    },
    // The Lua script's own answer at the step's time (no pure expireBan over the stored copy).
    state: (now) => store.stateOf(rule, now),
  };
}

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const rel = (t: number | null) => (t === null ? null : t - T0);

function expectedState(s: BanState): ExpectedBanState {
  const { status, banCount, bannedUntil, lastBanEnd, failures, overlong } = s;
  return { status, banCount, bannedUntil: rel(bannedUntil), lastBanEnd: rel(lastBanEnd), failures: failures.length, overlong: overlong.length };
}

function expectedEvent(e: BanEvent): ExpectedBanEvent {
  if (e.type === 'rule.unbanned') return { unbanned: e.at - T0, count: e.banCount };
  // The ban end and the duration must agree; the table gives the duration in minutes.
  expect(e.bannedUntil - e.at).toBe(e.durationMs);
  return { banned: e.at - T0, count: e.banCount, minutes: e.durationMs / MIN, reason: e.reason };
}

/** Runs one case's steps on a fresh rule, checking the state and the events after each. */
async function runCase(machine: BanMachine, steps: BanCase['steps']): Promise<void> {
  for (const [i, step] of steps.entries()) {
    const got: BanEvent[] = [];
    let last = step.at;
    if ('expire' in step) got.push(...(await machine.expire(T0 + step.at)));
    else {
      for (let k = 0; k < (step.n ?? 1); k++) {
        last = step.at + k * (step.every ?? 0);
        got.push(...(await machine.observe(step.observe, T0 + last)));
      }
    }
    const state = await machine.state(T0 + last);
    expect({ state: expectedState(state), events: got.map(expectedEvent) }, `step ${i + 1}`).toEqual({
      state: step.then,
      events: step.events,
    });
  }
}

const machines: Array<[string, () => BanMachine]> = [
  ['ban.ts (pure)', pureMachine],
  ['RedisBanStore (Lua)', redisMachine],
];

for (const [implementation, create] of machines) {
  describe(`the ban table on ${implementation}`, () => {
    for (const { name, steps } of BAN_CASES) it(name, () => runCase(create(), steps));
  });
}

describe('ban duration = ban count × 5 min, capped at 5', () => {
  it('vectors ban_durations_minutes', () => {
    const { ban_durations_minutes } = loadCallbackVectors();
    for (const [n, minutes] of Object.entries(ban_durations_minutes)) expect(banDurationMs(Number(n))).toBe(minutes * MIN);
  });
});

describe('isBanned', () => {
  it('holds from the ban until 1 ms before its end', () => {
    let s = initialBanState();
    for (let i = 0; i < 90; i++) s = observe(s, 'failure', T0 + i).state;
    const until = s.bannedUntil as number;
    expect(isBanned(s, T0 + 89)).toBe(true);
    expect(isBanned(s, until - 1)).toBe(true);
    expect(isBanned(s, until)).toBe(false);
    expect(isBanned(initialBanState(), T0)).toBe(false);
  });
});

describe('state is plain data', () => {
  it('survives JSON and parseBanState unchanged', () => {
    let active = initialBanState();
    for (let i = 0; i < 40; i++) active = observe(active, i % 2 ? 'failure' : 'overlong', T0 + i * 100).state;
    let banned = initialBanState();
    for (let i = 0; i < 90; i++) banned = observe(banned, 'failure', T0 + i * 10).state;
    expect(banned.status).toBe('banned');
    for (const s of [active, banned, initialBanState()]) expect(parseBanState(JSON.parse(JSON.stringify(s)))).toEqual(s);
  });

  it('turns malformed stored state into a fresh one', () => {
    expect(parseBanState(null)).toEqual(initialBanState());
    expect(parseBanState({ status: 'banned' })).toEqual(initialBanState());
    expect(parseBanState({ banCount: 99 }).banCount).toBe(5);
  });
});
