/**
 * Read-your-writes for cached settings across instances.
 *
 * Settings (a callback rule's URL, secret and switch, an association's Client Secret, an app's
 * sensitive words) are cached per instance. A write drops this instance's copies at once; for the
 * others each scope (an app id, a Client ID) has a version: the writer bumps it after its
 * transaction commits and before it answers, and a reader compares the scope's current version
 * with the one its copies were loaded under before using them, dropping them when it moved.
 *
 * In one process (`InProcessSettingsVersions`) the local drop is all there is: `check` answers
 * `undefined`, so the read path stays synchronous. On Redis (`RedisSettingsVersions`) the version
 * is a key `{prefix}settings:{kind}:{id}`, bumped with INCR and read with MGET; reads waiting at
 * the same time share one MGET, but never one sent before they asked (it could predate a write
 * they must see). When Redis does not answer within a bounded wait, the caches of the scope are
 * dropped (read afresh from the database): correctness wins over speed while Redis is away.
 */
import type { Redis } from 'ioredis';
import { Batcher } from '../../kernel/batcher.js';

/** What domain code holds for one kind of cached setting. */
export interface SettingsScope {
  /**
   * After a write of `id`'s settings has committed, before answering it: drops this instance's
   * copies and makes every other instance drop theirs before its next use. Resolves after a
   * bounded wait even when Redis is unreachable (see `RedisSettingsVersions`).
   */
  changed(id: string): Promise<void>;
  /**
   * Before using a cached setting of `id`: `undefined` when the cache can be used as it is (one
   * process), else a promise that resolves once the copies of `id` are current (dropped when
   * another instance changed them, or when that cannot be told).
   */
  check(id: string): Promise<void> | undefined;
}

/**
 * `read()` once `checking` (a scope's `check`) has settled; called at once, with no promise turn
 * of its own, when there is nothing to wait for (one process).
 */
export function afterCheck<T>(checking: Promise<void> | undefined, read: () => Promise<T>): Promise<T> {
  return checking ? checking.then(read) : read();
}

export interface SettingsVersions {
  /** True when several instances share the versions (Redis). */
  readonly shared: boolean;
  /** `kind` names the setting ("callbacks"); `drop` forgets this instance's copies of one id. */
  scope(kind: string, drop: (id: string) => void): SettingsScope;
  close(): void;
}

/** One process: a write's local drop is enough. */
export class InProcessSettingsVersions implements SettingsVersions {
  readonly shared = false;
  scope(_kind: string, drop: (id: string) => void): SettingsScope {
    return {
      changed: (id) => {
        drop(id);
        return Promise.resolve();
      },
      check: () => undefined,
    };
  }
  close(): void {}
}

export interface RedisSettingsOptions {
  prefix?: string;
  /** Longest wait for Redis to answer a read of versions; past it the scope is read afresh. */
  checkTimeoutMs?: number;
  /** Longest wait for a bump before the write answers anyway (the bump is then retried). */
  bumpTimeoutMs?: number;
  /** Period of the retries of bumps that failed. */
  retryMs?: number;
  onError?: (error: unknown) => void;
}

/** Past this many known scopes the remembered versions start over (each scope then reloads once). */
const MAX_SCOPES = 10_000;

/** Several instances: a version per scope in Redis. */
export class RedisSettingsVersions implements SettingsVersions {
  readonly shared = true;
  /** Key -> the version this instance's copies were loaded under (absent: unknown). */
  private readonly seen = new Map<string, string>();
  private readonly drops = new Map<string, (id: string) => void>();
  /** Reads that asked after the MGET in flight was sent: they wait for the next one. */
  /** Every check of one turn shares one MGET (the kernel batcher, started on a microtask); checks during a read wait for the next. */
  private readonly reads = new Batcher<string>({ run: (keys) => this.read(keys), schedule: queueMicrotask });
  /** Bumps that failed, retried until Redis takes them. */
  private readonly unbumped = new Set<string>();
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly prefix: string;
  private readonly checkTimeoutMs: number;
  private readonly bumpTimeoutMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisSettingsOptions = {},
  ) {
    this.prefix = `${options.prefix ?? 'parley:'}settings:`;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 500;
    this.bumpTimeoutMs = options.bumpTimeoutMs ?? 2_000;
    this.retryMs = options.retryMs ?? 1_000;
  }

  scope(kind: string, drop: (id: string) => void): SettingsScope {
    const base = `${this.prefix}${kind}:`;
    this.drops.set(base, drop);
    return {
      changed: (id) => this.changed(base + id, () => drop(id)),
      check: (id) => this.check(base + id),
    };
  }

  private async changed(key: string, drop: () => void): Promise<void> {
    drop();
    // Until the bump lands, this instance's own copies must not be kept under the old version.
    this.seen.delete(key);
    if (!(await this.bump(key))) {
      this.unbumped.add(key);
      this.scheduleRetry();
    }
  }

  private async bump(key: string): Promise<boolean> {
    try {
      await withTimeout(this.redis.incr(key), this.bumpTimeoutMs);
      return true;
    } catch (error) {
      this.options.onError?.(error);
      return false;
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retryBumps();
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private async retryBumps(): Promise<void> {
    for (const key of [...this.unbumped]) {
      if (await this.bump(key)) this.unbumped.delete(key);
    }
    if (this.unbumped.size > 0) this.scheduleRetry();
  }

  private check(key: string): Promise<void> {
    return this.reads.join(key);
  }

  /** One MGET for the keys of a batch; never fails (an unreadable version drops the copies). */
  private async read(batch: string[]): Promise<void> {
    const keys = [...new Set(batch)];
    const versions = await this.fetch(keys);
    keys.forEach((key, i) => this.observe(key, versions?.[i]));
  }

  private async fetch(keys: string[]): Promise<Array<string | null> | undefined> {
    // Not connected: do not queue behind a reconnect, read the database now.
    if (this.redis.status !== 'ready') return undefined;
    try {
      return await withTimeout(this.redis.mget(keys), this.checkTimeoutMs);
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
  }

  /** `version` undefined: Redis could not tell, so the copies are dropped and the next read reloads. */
  private observe(key: string, version: string | null | undefined): void {
    const current = version === undefined ? undefined : (version ?? '0');
    if (current !== undefined && this.seen.get(key) === current && !this.unbumped.has(key)) return;
    this.dropKey(key);
    if (current === undefined || this.unbumped.has(key)) this.seen.delete(key);
    else {
      if (this.seen.size >= MAX_SCOPES && !this.seen.has(key)) this.seen.clear();
      this.seen.set(key, current);
    }
  }

  private dropKey(key: string): void {
    for (const [base, drop] of this.drops) {
      if (key.startsWith(base)) {
        drop(key.slice(base.length));
        return;
      }
    }
  }

  close(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
