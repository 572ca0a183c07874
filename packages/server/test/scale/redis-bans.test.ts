/**
 * Two Redis ban stores on one Redis (two instances) share one window and ban once; the expiry
 * task ends the ban once. The rule itself is checked case by case in test/callbacks/ban.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAN_THRESHOLD, BAN_UNIT_MS, initialBanState, type BanState } from '../../src/modules/callbacks/ban.js';
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
