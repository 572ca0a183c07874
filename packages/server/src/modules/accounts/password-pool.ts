/**
 * A bounded pool for password hashing. scrypt costs tens of milliseconds of CPU and 16 MiB of
 * memory per call and runs on libuv's thread pool, where nothing else bounds it: a flood of
 * password grants or logins could take every core. At most `concurrency` hashes run at once.
 *
 * Callers wait in lanes (console sign-ins, each IM app's password grants, new passwords), up to
 * `queue` per lane; beyond that a request is refused at once with 503 `service_unavailable` and
 * `Retry-After`, before any hashing. A freed slot goes to the lanes in turn, so a flood of grants
 * on one app fills its own lane and delays a console sign-in by at most one hash per busy lane.
 */
import { AppError } from '../../kernel/errors.js';

export interface PasswordPoolOptions {
  concurrency: number;
  /** Callers that may wait in one lane. */
  queue: number;
}

/** Seconds a refused caller is told to wait: about the time a lane takes to drain. */
const RETRY_AFTER_SECONDS = 1;

export class PasswordPool {
  #active = 0;
  #peak = 0;
  #started = 0;
  #waiting = 0;
  /** Waiters per lane, in the order lanes are served (a served lane moves to the back). */
  readonly #lanes = new Map<string, Array<() => void>>();

  constructor(readonly options: PasswordPoolOptions) {}

  /** Hashes running now. */
  get active(): number {
    return this.#active;
  }

  /** The most hashes that ever ran at once (tests and diagnostics). */
  get peak(): number {
    return this.#peak;
  }

  /** Hashes started since the pool was made. */
  get started(): number {
    return this.#started;
  }

  /** Callers waiting for a slot now, in every lane. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Runs `work` in a slot, waiting in `lane`; rejects with 503 when the slots and that lane are full. */
  async run<T>(work: () => Promise<T>, lane = 'default'): Promise<T> {
    if (this.#active >= this.options.concurrency) {
      const waiters = this.#lanes.get(lane) ?? [];
      if (waiters.length >= this.options.queue) {
        throw new AppError(
          'service_unavailable',
          { detail: 'too many password checks in progress' },
          { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
        );
      }
      // The slot is handed over by the finishing caller, so #active stays within the bound.
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        this.#lanes.set(lane, waiters);
        this.#waiting += 1;
      });
    } else {
      this.#active += 1;
    }
    if (this.#active > this.#peak) this.#peak = this.#active;
    this.#started += 1;
    try {
      return await work();
    } finally {
      const next = this.#next();
      if (next) next();
      else this.#active -= 1;
    }
  }

  /** The first waiter of the lane served longest ago; that lane then goes to the back. */
  #next(): (() => void) | undefined {
    for (const [lane, waiters] of this.#lanes) {
      const next = waiters.shift();
      this.#lanes.delete(lane);
      if (!next) continue;
      if (waiters.length > 0) this.#lanes.set(lane, waiters);
      this.#waiting -= 1;
      return next;
    }
    return undefined;
  }
}
