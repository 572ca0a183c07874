/**
 * Which instances are alive, judged by one observer: an instance is dead when its beat counter has
 * not moved for `deadAfterMs` of the observer's clock. Only the observer's clock is read, so
 * instances whose clocks disagree never judge each other wrongly; a slow instance whose heartbeat
 * still moves is alive however long its jobs take. Pure: the clock is passed in.
 */
import type { Clock } from '../../kernel/clock.js';
import type { InstanceRecord } from './ports.js';

interface Seen {
  beat: number;
  /** The observer's time when this beat was first seen. */
  since: number;
}

export class Liveness {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly clock: Clock,
    private readonly deadAfterMs: number,
  ) {}

  /**
   * Takes a fresh read of the rows (this instance's own included, which is never judged) and
   * answers the instances now dead, each with the beat it stopped at.
   */
  observe(rows: readonly InstanceRecord[], selfId: string): Array<{ id: string; beat: number }> {
    const now = this.clock.now();
    const present = new Set<string>();
    const dead: Array<{ id: string; beat: number }> = [];
    for (const row of rows) {
      present.add(row.id);
      if (row.id === selfId) continue;
      const seen = this.seen.get(row.id);
      if (!seen || seen.beat !== row.beat) {
        this.seen.set(row.id, { beat: row.beat, since: now });
        continue;
      }
      if (now - seen.since >= this.deadAfterMs) dead.push({ id: row.id, beat: row.beat });
    }
    // Rows that left (a clean stop, or a take-over) are forgotten.
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id);
    return dead;
  }

  /** Since the instance's beat last moved, by the observer's clock (0 for an unknown one). */
  ageMs(id: string): number {
    const seen = this.seen.get(id);
    return seen ? this.clock.now() - seen.since : 0;
  }

  /** Whether the instance is believed alive (not yet judged dead). */
  alive(id: string): boolean {
    return this.ageMs(id) < this.deadAfterMs;
  }

  /** Whether a watched instance is alive; undefined for one not watched (never seen, or forgotten). */
  known(id: string): boolean | undefined {
    return this.seen.has(id) ? this.alive(id) : undefined;
  }

  /** Forgets an instance (after taking over its jobs). */
  forget(id: string): void {
    this.seen.delete(id);
  }
}
