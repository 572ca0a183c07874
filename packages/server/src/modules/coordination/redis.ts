import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Coordination, PubSub, Singletons } from './ports.js';
import { RedisSettingsVersions } from './settings-versions.js';

/** Redis pub/sub on a dedicated subscriber connection (a subscribed connection can do nothing else). */
export class RedisPubSub implements PubSub {
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix = 'parley:',
  ) {
    subscriber.on('message', (channel: string, payload: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(payload);
        } catch {
          /* isolated */
        }
      }
    });
  }

  publish(topic: string, payload: string): void {
    // Best effort: a lost wake-up is covered by polling, a lost live event by the next fetch.
    this.publisher.publish(this.prefix + topic, payload).catch(() => undefined);
  }

  async subscribe(topic: string, handler: (payload: string) => void): Promise<() => void> {
    const channel = this.prefix + topic;
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.subscriber.subscribe(channel);
    }
    set.add(handler);
    return () => {
      const current = this.handlers.get(channel);
      current?.delete(handler);
      if (current && current.size === 0) {
        this.handlers.delete(channel);
        this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }
}

// Renew only while we still own the lock: compare-and-extend, compare-and-delete.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Leader per task name with a Redis lock (`SET NX PX`). The holder renews it on every tick; an
 * instance that dies stops renewing, the key expires after `lockTtlMs`, and the next instance to
 * tick takes over.
 */
export class RedisSingletons implements Singletons {
  private readonly owner = randomUUID();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly held = new Set<string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly redis: Redis,
    private readonly onError: (name: string, error: unknown) => void = () => undefined,
    private readonly prefix = 'parley:lock:',
    /** Lock lifetime; default three intervals (at least 5 s). */
    private readonly lockTtlMs?: number,
  ) {}

  every(name: string, intervalMs: number, task: () => Promise<void>): void {
    if (this.timers.has(name)) throw new Error(`singleton ${name} already registered`);
    const ttl = this.lockTtlMs ?? Math.max(3 * intervalMs, 5_000);
    const key = this.prefix + name;
    const tick = () => {
      const run = (async () => {
        const mine = this.held.has(name)
          ? (await this.redis.eval(RENEW, 1, key, this.owner, String(ttl))) === 1
          : (await this.redis.set(key, this.owner, 'PX', ttl, 'NX')) === 'OK';
        if (mine) this.held.add(name);
        else this.held.delete(name);
        if (mine) await task();
      })()
        .catch((error: unknown) => {
          this.held.delete(name);
          this.onError(name, error);
        })
        .finally(() => this.running.delete(run));
      this.running.add(run);
    };
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    this.timers.set(name, timer);
    tick();
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  /** Stops without releasing the locks, as a crashed instance would. Tests only. */
  async abandon(): Promise<void> {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
    this.held.clear();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
    for (const name of this.held) {
      await this.redis.eval(RELEASE, 1, this.prefix + name, this.owner).catch(() => undefined);
    }
    this.held.clear();
  }
}

export function redisCoordination(
  redis: Redis,
  onError?: (name: string, error: unknown) => void,
  prefix = 'parley:',
  onSettingsError?: (error: unknown) => void,
): Coordination {
  // No ready check: ioredis sends INFO on (re)connect, which a connection already in subscriber
  // mode refuses with an unhandled rejection that ends the process.
  const subscriber = redis.duplicate({ enableReadyCheck: false });
  subscriber.on('error', () => undefined);
  const singletons = new RedisSingletons(redis, onError, `${prefix}lock:`);
  const settings = new RedisSettingsVersions(redis, { prefix, ...(onSettingsError ? { onError: onSettingsError } : {}) });
  return {
    kind: 'redis',
    pubsub: new RedisPubSub(redis, subscriber, prefix),
    singletons,
    settings,
    close: async () => {
      settings.close();
      await singletons.stop();
      subscriber.disconnect();
    },
  };
}
