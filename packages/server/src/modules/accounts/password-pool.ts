/**
 * A bounded pool for password hashing. scrypt costs tens of milliseconds of CPU and 16 MiB of
 * memory per call and runs on libuv's thread pool, where nothing else bounds it: a flood of
 * password grants or logins could take every core. At most `concurrency` hashes run at once;
 * up to `queue` more wait their turn; beyond that a request is refused at once with 503
 * `service_unavailable` and `Retry-After`, before any hashing.
 */
import { AppError } from '../../kernel/errors.js';

export interface PasswordPoolOptions {
  concurrency: number;
  queue: number;
}

/** Seconds a refused caller is told to wait: about the time the queue takes to drain. */
const RETRY_AFTER_SECONDS = 1;

export class PasswordPool {
  #active = 0;
  #peak = 0;
  #started = 0;
  readonly #waiting: Array<() => void> = [];

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

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `work` in a slot; rejects with 503 when the slots and the queue are full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.options.concurrency) {
      if (this.#waiting.length >= this.options.queue) {
        throw new AppError(
          'service_unavailable',
          { detail: 'too many password checks in progress' },
          { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
        );
      }
      // The slot is handed over by the finishing caller, so #active stays within the bound.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active += 1;
    }
    if (this.#active > this.#peak) this.#peak = this.#active;
    this.#started += 1;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active -= 1;
    }
  }
}
