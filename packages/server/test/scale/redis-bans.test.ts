/**
 * The Redis ban store runs the machine of ban.ts as a Lua script. Driven with the same sequences
 * as the pure machine, it must reach the same states and emit the same events; two stores on one
 * Redis (two instances) share one window and ban once.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BAN_THRESHOLD,
  BAN_UNIT_MS,
  expireBan,
  initialBanState,
  observe,
  type BanObservation,
  type BanState,
} from '../../src/modules/callbacks/ban.js';
import { CallbackEvents } from '../../src/modules/callbacks/events.js';
import type { CallbackRule } from '../../src/modules/callbacks/ports.js';
import { RedisBanStore } from '../../src/modules/callbacks/redis-bans.js';
import { secretBox } from '../../src/kernel/secret-box.js';
import { kyselyCallbacksRepository } from '../../src/storage/repositories/callbacks.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage } from '../helpers/engines.js';
import { REDIS_URL } from './cluster.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('RedisBanStore', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const prefix = `ptest:${randomBytes(4).toString('hex')}:`;
  let cleanup: () => Promise<void>;
  let makeStore: (events: CallbackEvents) => RedisBanStore;
  let ruleSeq = 1;
  const rule = (ban: BanState = initialBanState()): CallbackRule => ({
    id: ruleSeq++,
    appId: 'app',
    name: 'main',
    url: 'http://127.0.0.1/cb',
    enabled: true,
    secret: 's',
    ban,
    eventTypes: ['chat'],
    chatTypes: [],
    messageTypes: [],
    sources: [],
    createdAt: T0,
    updatedAt: T0,
  } as CallbackRule);

  beforeAll(async () => {
    const clock = new FakeClock(T0);
    const t = await createTestStorage('sqlite', clock);
    cleanup = t.cleanup;
    const repo = kyselyCallbacksRepository(t.storage.db, secretBox(randomBytes(32)));
    makeStore = (events) =>
      new RedisBanStore({
        redis,
        prefix,
        repo,
        clock,
        events,
        lookup: async () => ({ appId: 'app', name: 'main' }),
        onError: (error) => {
          throw error;
        },
      });
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await cleanup?.();
  });

  it('reaches the same states and events as the pure machine over bans, expiry and a 24 h streak', async () => {
    const events = new CallbackEvents();
    const seen: string[] = [];
    events.on('rule.banned', (e) => seen.push(`banned ${e.banCount} ${e.bannedUntil} ${e.reason}`));
    events.on('rule.unbanned', (e) => seen.push(`unbanned ${e.banCount}`));
    const store = makeStore(events);
    const r = rule();
    let pure = initialBanState();
    const expected: string[] = [];
    // Phases: a ban, observations while banned, a consecutive ban by over-long answers after
    // expiry, a mixed window, a ban after a 25 h pause (count back to 1), then a jittery tail.
    let now = T0;
    let seed = 7;
    const rand = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const phases: Array<{ skip: number; n: number; gap: () => number; kind: () => BanObservation }> = [
      { skip: 0, n: 100, gap: () => 100, kind: () => 'failure' },
      { skip: 0, n: 50, gap: () => 100, kind: () => 'failure' },
      { skip: 6 * 60_000, n: 95, gap: () => 50, kind: () => 'overlong' },
      { skip: 11 * 60_000, n: 200, gap: () => 100, kind: () => (rand() < 0.5 ? 'failure' : 'overlong') },
      { skip: 25 * 3_600_000, n: 95, gap: () => 200, kind: () => 'failure' },
      { skip: BAN_UNIT_MS, n: 600, gap: () => (rand() < 0.97 ? Math.floor(rand() * 400) : 20_000), kind: () => (rand() < 0.8 ? 'failure' : 'overlong') },
    ];
    for (const phase of phases) {
      now += phase.skip;
      for (let i = 0; i < phase.n; i++) {
        now += phase.gap();
        const kind = phase.kind();
        const step = observe(pure, kind, now);
        pure = step.state;
        for (const e of step.events) expected.push(e.type === 'rule.banned' ? `banned ${e.banCount} ${e.bannedUntil} ${e.reason}` : `unbanned ${e.banCount}`);
        await store.record(r, kind, now);
        expect(await store.viewOf(r, now)).toEqual(expireBan(pure, now).state);
      }
    }
    expect(seen).toEqual(expected);
    // The sequence covers a first ban, a consecutive (longer) one and expiries.
    expect(seen.filter((s) => s.startsWith('banned 2')).length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.startsWith('unbanned')).length).toBeGreaterThan(0);
  });

  it('shares one window between two instances: 45 + 45 failures ban once, seen by both', async () => {
    const eventsA = new CallbackEvents();
    const eventsB = new CallbackEvents();
    let bans = 0;
    eventsA.on('rule.banned', () => bans++);
    eventsB.on('rule.banned', () => bans++);
    const a = makeStore(eventsA);
    const b = makeStore(eventsB);
    const r = rule();
    await Promise.all(
      Array.from({ length: BAN_THRESHOLD / 2 }, async (_, i) => {
        await a.record(r, 'failure', T0 + i * 10);
        await b.record(r, 'failure', T0 + i * 10 + 5);
      }),
    );
    expect(bans).toBe(1);
    const now = T0 + 1_000;
    expect(await a.isBanned(r, now)).toBe(true);
    expect(await b.stateOf(r, now)).toMatchObject({ status: 'banned', banCount: 1 });

    // Ban expiry runs once (the periodic task) and both see the rule active again.
    let unbans = 0;
    eventsA.on('rule.unbanned', () => unbans++);
    eventsB.on('rule.unbanned', () => unbans++);
    const after = T0 + 1_000 + BAN_UNIT_MS;
    await Promise.all([a.tick(after), b.tick(after)]);
    expect(unbans).toBe(1);
    expect(await b.isBanned(r, after)).toBe(false);
    expect((await a.viewOf(r, after)).status).toBe('active');
  });
});
