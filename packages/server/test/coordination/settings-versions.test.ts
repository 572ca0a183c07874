/**
 * Read-your-writes of cached settings (coordination/settings-versions.ts): in one process a
 * write's local drop is all, with no await on the read path; over a real Redis a write on one
 * instance makes every other instance drop its copy before its next use, reads waiting together
 * share one MGET but never one sent before they asked, and while Redis is unreachable the copies
 * are dropped on every use (read afresh) and the write's bump lands once Redis is back.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/kernel/ttl-cache.js';
import { InProcessSettingsVersions, RedisSettingsVersions, type SettingsVersions } from '../../src/modules/coordination/settings-versions.js';
import { FakeClock } from '../helpers/clock.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const connections: Redis[] = [];
const versionsToClose: SettingsVersions[] = [];

async function connect(url = REDIS_URL): Promise<Redis> {
  const r = new Redis(url, { maxRetriesPerRequest: 2, retryStrategy: () => 50 });
  r.on('error', () => undefined);
  connections.push(r);
  if (r.status !== 'ready') await new Promise((resolve) => r.once('ready', resolve));
  return r;
}

afterAll(async () => {
  for (const v of versionsToClose) v.close();
  for (const c of connections) c.disconnect();
});

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * One instance's view of a setting: a cache with a long TTL (an hour on a clock that never moves)
 * over `source`, the stand-in for the database row, checked before each use as domain code does.
 */
function instance(versions: SettingsVersions, source: { url: string }) {
  const cache = new TtlCache<string, string>(new FakeClock(), 3_600_000);
  const loads = { n: 0 };
  const scope = versions.scope('test', (id) => cache.delete(id));
  return {
    loads,
    scope,
    async read(id: string): Promise<string> {
      const checking = scope.check(id);
      if (checking) await checking;
      return cache.get(id, async () => (loads.n++, source.url));
    },
  };
}

describe('in-process settings versions', () => {
  it('drops the local copy on a write and adds no await to the read path', async () => {
    const row = { url: 'http://old' };
    const one = instance(new InProcessSettingsVersions(), row);
    expect(one.scope.check('app')).toBeUndefined();
    expect(await one.read('app')).toBe('http://old');
    row.url = 'http://new';
    expect(await one.read('app')).toBe('http://old'); // cached: nobody said it changed
    await one.scope.changed('app');
    expect(await one.read('app')).toBe('http://new');
    expect(one.loads.n).toBe(2);
  });
});

describe('Redis settings versions', () => {
  const prefix = () => `parley-test-sv-${process.pid}-${Math.random().toString(36).slice(2)}:`;
  const versions = (redis: Redis, p: string, more: Partial<ConstructorParameters<typeof RedisSettingsVersions>[1]> = {}) => {
    const v = new RedisSettingsVersions(redis, { prefix: p, ...more });
    versionsToClose.push(v);
    return v;
  };

  it('makes a write answered on one instance seen by the other at its next read, and only then reloads', async () => {
    const p = prefix();
    const row = { url: 'http://old' };
    const a = instance(versions(await connect(), p), row);
    const b = instance(versions(await connect(), p), row);
    expect(await b.read('app')).toBe('http://old');
    expect(await b.read('app')).toBe('http://old');
    expect(b.loads.n).toBe(1); // unchanged version: the copy is used

    row.url = 'http://new'; // the write commits ...
    await a.scope.changed('app'); // ... and is answered
    expect(await b.read('app')).toBe('http://new');
    expect(await a.read('app')).toBe('http://new');
    expect(b.loads.n).toBe(2);
    // Other scopes keep their copies.
    expect(await b.read('other')).toBe('http://new');
    row.url = 'http://newer';
    await a.scope.changed('app');
    expect(await b.read('other')).toBe('http://new');
    expect(await b.read('app')).toBe('http://newer');
  });

  it('shares one MGET among reads waiting together, and never one sent before a read asked', async () => {
    const p = prefix();
    const redis = await connect();
    let mgets = 0;
    const mget = redis.mget.bind(redis);
    redis.mget = ((...args: Parameters<typeof redis.mget>) => (mgets++, mget(...args))) as typeof redis.mget;
    const row = { url: 'http://old' };
    const writer = instance(versions(await connect(), p), row);
    const reader = instance(versions(redis, p), row);
    const first = await Promise.all(Array.from({ length: 200 }, (_, i) => reader.read(i % 2 === 0 ? 'app' : 'app2')));
    expect(new Set(first)).toEqual(new Set(['http://old']));
    expect(mgets).toBe(1);

    // A read that starts while an MGET is in flight, after a write was answered, sees the write.
    const before = mgets;
    const early = reader.read('app');
    await Promise.resolve(); // the early MGET is on its way
    row.url = 'http://new';
    await writer.scope.changed('app');
    expect(await reader.read('app')).toBe('http://new');
    await early;
    expect(mgets - before).toBe(2);
  });

  it('reads afresh on every use while Redis is unreachable, and the bump of a write lands once it is back', async () => {
    const p = prefix();
    const target = new URL(REDIS_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    try {
      const row = { url: 'http://old' };
      const errors: unknown[] = [];
      const viaProxy = await connect(`redis://127.0.0.1:${proxy.port}`);
      const cut = instance(versions(viaProxy, p, { retryMs: 50, bumpTimeoutMs: 300, onError: (e) => errors.push(e) }), row);
      const other = instance(versions(await connect(), p), row);
      expect(await cut.read('app')).toBe('http://old');
      expect(await other.read('app')).toBe('http://old');
      await proxy.cut();
      await until(() => viaProxy.status !== 'ready');

      const loads = cut.loads.n;
      const started = Date.now();
      expect(await cut.read('app')).toBe('http://old');
      expect(await cut.read('app')).toBe('http://old');
      expect(cut.loads.n - loads).toBe(2); // no copy used: each read went to the source
      expect(Date.now() - started).toBeLessThan(1_000);

      row.url = 'http://new';
      const writeStarted = Date.now();
      await cut.scope.changed('app'); // answered within the bounded wait, though the bump failed
      expect(Date.now() - writeStarted).toBeLessThan(2_000);
      expect(errors.length).toBeGreaterThan(0);
      expect(await cut.read('app')).toBe('http://new');

      await proxy.restore();
      // The retried bump reaches Redis: the instance that kept its copy drops it.
      await until(async () => (await other.read('app')) === 'http://new', 5_000);
    } finally {
      await proxy.close();
    }
  });
});
