import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/kernel/ttl-cache.js';
import { FakeClock } from '../helpers/clock.js';

/** A load whose result the test releases, counting how often it was started. */
function gatedLoad<V>() {
  let starts = 0;
  let release: (value: V) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const load = () => {
    starts++;
    return new Promise<V>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
  };
  return { load, starts: () => starts, release: (value: V) => release(value), fail: (error: Error) => fail(error) };
}

describe('TtlCache', () => {
  it('answers from the cache within the time to live and loads again after it', async () => {
    const clock = new FakeClock(1_000_000);
    const cache = new TtlCache<string, number>(clock, 2_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    clock.advance(1_999);
    expect(await cache.get('a', load)).toBe(1);
    clock.advance(1);
    expect(await cache.get('a', load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('shares one load among the callers that miss a key while it loads', async () => {
    const cache = new TtlCache<string, string>(new FakeClock(0), 5_000);
    const gate = gatedLoad<string>();
    const callers = Array.from({ length: 64 }, () => cache.get('client-1', gate.load));
    gate.release('row');
    expect(await Promise.all(callers)).toEqual(Array.from({ length: 64 }, () => 'row'));
    expect(gate.starts()).toBe(1);
    // Cached now: no further load.
    expect(await cache.get('client-1', gate.load)).toBe('row');
    expect(gate.starts()).toBe(1);
  });

  it('does not keep a load that an invalidation overtook, but still answers its callers', async () => {
    const cache = new TtlCache<string, string>(new FakeClock(0), 5_000);
    const stale = gatedLoad<string>();
    const waiting = cache.get('k', stale.load);
    cache.delete('k');
    const fresh = gatedLoad<string>();
    const next = cache.get('k', fresh.load);
    expect(fresh.starts()).toBe(1);
    stale.release('old');
    fresh.release('new');
    expect(await waiting).toBe('old');
    expect(await next).toBe('new');
    expect(await cache.get('k', async () => 'unused')).toBe('new');
  });

  it('keeps no failed load: its callers see the error and the next caller loads again', async () => {
    const cache = new TtlCache<string, string>(new FakeClock(0), 5_000);
    const gate = gatedLoad<string>();
    const first = cache.get('k', gate.load);
    const second = cache.get('k', gate.load);
    gate.fail(new Error('database down'));
    await expect(first).rejects.toThrow('database down');
    await expect(second).rejects.toThrow('database down');
    expect(await cache.get('k', async () => 'back')).toBe('back');
  });

  it('treats an entry loaded in the future (the clock went back) as expired', async () => {
    const clock = new FakeClock(10_000);
    const cache = new TtlCache<string, number>(clock, 2_000);
    let loads = 0;
    await cache.get('a', async () => ++loads);
    clock.set(9_000);
    expect(await cache.get('a', async () => ++loads)).toBe(2);
  });

  it('drops the entries that match, and starts over past its size bound', async () => {
    const cache = new TtlCache<number, string>(new FakeClock(0), 5_000, 3);
    for (const key of [1, 2, 3]) cache.set(key, key === 2 ? 'app-b' : 'app-a');
    cache.deleteWhere((value) => value === 'app-a');
    expect(await cache.get(1, async () => 'reloaded')).toBe('reloaded');
    expect(await cache.get(2, async () => 'unused')).toBe('app-b');
    cache.set(3, 'x');
    cache.set(4, 'y');
    expect(await cache.get(2, async () => 'after-reset')).toBe('after-reset');
  });
});
