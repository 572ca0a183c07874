/**
 * A read-through cache with a time to live whose loads are shared. When an entry expires, every
 * request in flight misses it at once; without sharing each would read the database (64
 * concurrent send-message requests, or a rule's 128 delivery slots, each reading the same row, on
 * PostgreSQL each taking a pooled connection). Here the callers that miss a key while it loads
 * wait for that one load.
 *
 * An invalidation wins over a load in flight: the load still answers the callers that were
 * waiting for it, but its result is not kept, so the next caller reads afresh. A failed load is
 * not kept either.
 */
import type { Clock } from './clock.js';

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; loadedAt: number }>();
  private readonly loading = new Map<K, Promise<V>>();
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /** Past this many entries the cache starts over (keys come from requests: bound the memory). */
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value of `key` if still fresh; otherwise the (shared) result of `load`. */
  get(key: K, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now();
    const hit = this.fresh(key, now);
    if (hit) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded: Promise<V> = load().then(
      (value) => {
        if (this.loading.get(key) === loaded) {
          this.loading.delete(key);
          this.set(key, value, now);
        }
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  /**
   * The entry of `key` while it is fresh, else undefined: lets a hot path skip building a load
   * and awaiting a promise for a value it already has (`{ value }`, since the value itself may be
   * undefined).
   */
  fresh(key: K, now = this.clock.now()): { readonly value: V } | undefined {
    const hit = this.entries.get(key);
    // A clock that went back (a test moving it) counts as expired.
    return hit && now - hit.loadedAt < this.ttlMs && now >= hit.loadedAt ? hit : undefined;
  }

  /** Keeps `value` for `key`, read at `loadedAt`, e.g. a row read by a caller's own transaction. */
  set(key: K, value: V, loadedAt = this.clock.now()): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, { value, loadedAt });
  }

  /** Drops `key`, and any load of it in flight from the cache's point of view. */
  delete(key: K): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Drops every key whose cached value matches. */
  deleteWhere(match: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (match(entry.value, key)) this.delete(key);
  }
}
