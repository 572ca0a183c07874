import type { Redis } from 'ioredis';
import type { Clock } from '../kernel/clock.js';

/**
 * A fixed-window rate limit: at most `max` hits per key in each window, which opens on the key's
 * first hit. `take` answers 0 when the hit is allowed, else the seconds until the window ends
 * (the Retry-After). The in-memory limiter answers synchronously so the hot path that uses it
 * adds no promise turn; the Redis one shares its counters between instances.
 */
export interface FixedWindowLimiter {
  take(key: string): number | Promise<number>;
  /**
   * Charges nothing: the seconds until the key's window ends when it has already used its `max`
   * hits, else 0. A check made before a request proves who it is (so that failures, charged
   * elsewhere, cannot use up the key).
   */
  peek(key: string): number | Promise<number>;
}

export interface FixedWindowOptions {
  max: number;
  windowMs: number;
}

const retryAfter = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs / 1000));

/** Counters of one process, timed by the injected clock. */
export function memoryWindow(clock: Clock, { max, windowMs }: FixedWindowOptions): FixedWindowLimiter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let sweepAt = 0;
  return {
    take(key) {
      const now = clock.now();
      if (now >= sweepAt) {
        // Windows that ended are dropped once per window length, so idle keys do not pile up.
        for (const [k, w] of windows) if (w.endsAt <= now) windows.delete(k);
        sweepAt = now + windowMs;
      }
      let w = windows.get(key);
      if (!w || w.endsAt <= now) {
        w = { count: 0, endsAt: now + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return w.count <= max ? 0 : retryAfter(w.endsAt - now);
    },
    peek(key) {
      const w = windows.get(key);
      if (!w) return 0;
      const now = clock.now();
      return w.endsAt > now && w.count >= max ? retryAfter(w.endsAt - now) : 0;
    },
  };
}

/** INCR the window's counter, set its expiry on the first hit, answer [count, ms left]. */
const TAKE_LUA = `
local count = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    ttl = tonumber(ARGV[1])
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
end
return {count, ttl}
`;

/** The window's [count, ms left] without charging it. */
const PEEK_LUA = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}
`;

/**
 * Counters in Redis under `prefix + key`, shared by every instance. A Redis failure rejects, and
 * the request is refused as unavailable rather than let through unlimited.
 */
export function redisWindow(redis: Redis, prefix: string, { max, windowMs }: FixedWindowOptions): FixedWindowLimiter {
  // A defined command is sent by its SHA once Redis has the script.
  const client = redis as Redis & {
    parleyFixedWindow?: (key: string, windowMs: number) => Promise<[number, number]>;
    parleyFixedWindowPeek?: (key: string) => Promise<[number, number]>;
  };
  if (!client.parleyFixedWindow) client.defineCommand('parleyFixedWindow', { numberOfKeys: 1, lua: TAKE_LUA });
  if (!client.parleyFixedWindowPeek) client.defineCommand('parleyFixedWindowPeek', { numberOfKeys: 1, lua: PEEK_LUA });
  const command = client.parleyFixedWindow!.bind(client);
  const peekCommand = client.parleyFixedWindowPeek!.bind(client);
  return {
    async take(key) {
      const [count, ttl] = await command(prefix + key, windowMs);
      return count <= max ? 0 : retryAfter(ttl);
    },
    async peek(key) {
      const [count, ttl] = await peekCommand(prefix + key);
      return count >= max && ttl > 0 ? retryAfter(ttl) : 0;
    },
  };
}
