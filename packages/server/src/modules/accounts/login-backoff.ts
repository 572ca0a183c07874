/**
 * Back-off for password checks (console login and the IM password grant), per account and per
 * client IP. It is asked before scrypt runs, so a refused guess costs no hashing.
 *
 * After `failures` consecutive failures of a key, the key is refused for `baseMs`, doubling with
 * each further failure up to `capMs`; a success resets the account and the IP, and failures more
 * than `capMs` apart start the count over. While a key is near its limit only as many checks run
 * at once as failures remain before it, and one at a time past it, so parallel guesses cannot slip
 * in before the first failures are counted. Kept in this process's memory.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';

export interface LoginBackoffOptions {
  /** Consecutive failures of one account before it backs off. */
  accountFailures: number;
  /** Consecutive failures from one IP before it backs off (several people may share an IP). */
  ipFailures: number;
  baseMs: number;
  capMs: number;
  /** Keys kept at most; the oldest idle ones are dropped first. */
  maxKeys: number;
}

export const LOGIN_BACKOFF_DEFAULTS: LoginBackoffOptions = {
  accountFailures: 5,
  ipFailures: 20,
  baseMs: 1000,
  capMs: 15 * 60_000,
  maxKeys: 100_000,
};

interface Entry {
  failures: number;
  inFlight: number;
  until: number;
  /** When the last failure was counted. */
  last: number;
}

/** An attempt admitted by `begin`, to be closed with `end`. */
export interface LoginAttempt {
  account: string;
  ip: string;
}

export class LoginBackoff {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    readonly options: LoginBackoffOptions = LOGIN_BACKOFF_DEFAULTS,
  ) {}

  /**
   * Admits an attempt or throws 429 `code` (the surface's: `rate_limited` on /api, `reach_limit`
   * on IM) with Retry-After. `account` names the account within its surface, e.g. `console:alice`.
   */
  begin(account: string, ip: string, code: 'rate_limited' | 'reach_limit' = 'rate_limited'): LoginAttempt {
    const now = this.clock.now();
    const accountKey = `a:${account}`;
    const ipKey = `i:${ip}`;
    const wait = Math.max(this.#wait(accountKey, this.options.accountFailures, now), this.#wait(ipKey, this.options.ipFailures, now));
    if (wait > 0) {
      throw new AppError(code, { retryAfter: wait }, { headers: { 'retry-after': String(wait) } });
    }
    this.#entry(accountKey).inFlight += 1;
    this.#entry(ipKey).inFlight += 1;
    return { account: accountKey, ip: ipKey };
  }

  /** Closes an attempt: a failure extends the back-off, a success clears both keys, undefined (no answer) does neither. */
  end(attempt: LoginAttempt, ok: boolean | undefined): void {
    const now = this.clock.now();
    this.#close(attempt.account, ok, this.options.accountFailures, now);
    this.#close(attempt.ip, ok, this.options.ipFailures, now);
  }

  /** Seconds `key` must wait, 0 when an attempt may start now. */
  #wait(key: string, limit: number, now: number): number {
    const e = this.#entries.get(key);
    if (!e) return 0;
    if (e.until > now) return Math.ceil((e.until - now) / 1000);
    return e.inFlight >= Math.max(1, limit - e.failures) ? 1 : 0;
  }

  #close(key: string, ok: boolean | undefined, limit: number, now: number): void {
    const e = this.#entries.get(key);
    if (!e) return;
    e.inFlight = Math.max(0, e.inFlight - 1);
    if (ok) e.failures = 0;
    else if (ok === false) {
      // Failures a cap apart are not consecutive guessing: the count starts over.
      if (now - e.last > this.options.capMs) e.failures = 0;
      e.failures += 1;
      e.last = now;
      if (e.failures >= limit) {
        const delay = Math.min(this.options.capMs, this.options.baseMs * 2 ** Math.min(30, e.failures - limit));
        e.until = now + delay;
      }
    }
    if (e.failures === 0 && e.inFlight === 0) this.#entries.delete(key);
  }

  #entry(key: string): Entry {
    let e = this.#entries.get(key);
    if (!e) {
      if (this.#entries.size >= this.options.maxKeys) this.#evict();
      e = { failures: 0, inFlight: 0, until: 0, last: 0 };
      this.#entries.set(key, e);
    }
    return e;
  }

  /** Drops keys whose back-off ended a cap ago, then, if still full, the oldest tenth. */
  #evict(): void {
    const now = this.clock.now();
    for (const [k, e] of this.#entries) if (e.inFlight === 0 && Math.max(e.until, e.last) + this.options.capMs <= now) this.#entries.delete(k);
    if (this.#entries.size < this.options.maxKeys) return;
    let drop = Math.ceil(this.options.maxKeys / 10);
    for (const [k, e] of this.#entries) {
      if (drop-- <= 0) break;
      if (e.inFlight === 0) this.#entries.delete(k);
    }
  }
}
