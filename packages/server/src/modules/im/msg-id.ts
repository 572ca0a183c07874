/**
 * Message and group ids: decimal strings that increase with time.
 *
 *   id = ms × 4096 + sequence
 *
 * `ms` is the clock's time, never allowed to go backwards; `sequence` counts ids issued within one
 * ms. When 4096 ids were issued in one ms the generator borrows the next ms, so ids stay strictly
 * increasing in this process. The largest id before year 2500 is below 2^53, so ids round-trip
 * through JSON numbers and BIGINT columns unchanged. Another process may issue the same id in the
 * same ms: the primary key (app_id, msg_id) rejects the duplicate and the sender retries with a
 * fresh id, so ids stay unique per app.
 */
import type { Clock } from '../../kernel/clock.js';

const SEQUENCE_BITS = 4096;

export class IdGenerator {
  private lastMs = 0;
  private sequence = 0;

  constructor(private readonly clock: Clock) {}

  next(): string {
    const now = this.clock.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.sequence = 0;
    } else if (++this.sequence >= SEQUENCE_BITS) {
      this.lastMs += 1;
      this.sequence = 0;
    }
    return String(this.lastMs * SEQUENCE_BITS + this.sequence);
  }
}

/** The ms part of an id: when it was issued. */
export const idTime = (id: string): number => Math.floor(Number(id) / SEQUENCE_BITS);

/** The first id issued at `ms`: every id below it was issued before. */
export const firstIdAt = (ms: number): string => String(Math.max(0, ms) * SEQUENCE_BITS);

/** The last id that can have been issued before `ms` ('0' for the start of time). */
export const lastIdBefore = (ms: number): string => String(Math.max(0, Math.max(0, ms) * SEQUENCE_BITS - 1));
