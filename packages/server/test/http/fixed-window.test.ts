/**
 * The send-message rate limit's fixed windows: in memory on the injected clock, and in Redis
 * (real server) shared by every limiter that names the same prefix, as instances do.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryWindow, redisWindow } from '../../src/http/fixed-window.js';
import { FakeClock } from '../helpers/clock.js';

describe('memoryWindow', () => {
  it('allows max hits per key in a window, then answers the seconds left, and opens a new window when it ends', () => {
    const clock = new FakeClock();
    const limiter = memoryWindow(clock, { max: 3, windowMs: 1000 });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    clock.advance(200);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0); // another key has its own budget
    clock.advance(799);
    expect(limiter.take('a')).toBe(1); // 1 ms left still rounds up to a second
    clock.advance(1);
    expect(limiter.take('a')).toBe(0);
  });

  it('answers whole seconds for longer windows', () => {
    const clock = new FakeClock();
    const limiter = memoryWindow(clock, { max: 1, windowMs: 60_000 });
    limiter.take('k');
    clock.advance(15_500);
    expect(limiter.take('k')).toBe(45);
  });
});

describe('redisWindow', () => {
  const url = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let a: Redis;
  let b: Redis;
  const prefix = `parley-test-${randomUUID()}-`;

  beforeAll(() => {
    a = new Redis(url, { maxRetriesPerRequest: 2 });
    b = new Redis(url, { maxRetriesPerRequest: 2 });
  });
  afterAll(async () => {
    const keys = await a.keys(`${prefix}*`);
    if (keys.length) await a.del(...keys);
    a.disconnect();
    b.disconnect();
  });

  it('shares one budget between instances and lets the counter expire with its window', async () => {
    const one = redisWindow(a, prefix, { max: 2, windowMs: 1500 });
    const two = redisWindow(b, prefix, { max: 2, windowMs: 1500 });
    expect(await one.take('t/1')).toBe(0);
    expect(await two.take('t/1')).toBe(0);
    expect(await one.take('t/1')).toBe(2); // 1.5 s left, rounded up
    expect(await two.take('t/2')).toBe(0);
    const ttl = await a.pttl(`${prefix}t/1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1500);
  });

  it('rejects when Redis is unreachable, so the request is refused rather than let through', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    try {
      await expect(Promise.resolve(redisWindow(down, prefix, { max: 1, windowMs: 1000 }).take('x'))).rejects.toThrow();
    } finally {
      down.disconnect();
    }
  });
});
