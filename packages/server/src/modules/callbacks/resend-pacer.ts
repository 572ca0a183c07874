/**
 * Pacing of exception-store re-sends: each app may re-send `perSecond` records a second on this
 * instance, however many re-sends of its keys are running. A page books its share of time
 * (records / perSecond) from the moment it starts; the app's next page may start when that share
 * has passed. Idle time is not saved up, so a new re-send never starts with a burst.
 */
import type { Clock } from '../../kernel/clock.js';

export type PaceDecision = { go: true; nextAt: number } | { go: false; at: number };

/** Entries kept before finished ones are dropped (one per app that re-sent recently). */
const PRUNE_AT = 1024;

export class ResendPacer {
  private readonly freeAt = new Map<string, number>();

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {}

  /** Records one page may hold so that pages stay small at low rates. */
  pageSize(max: number): number {
    return Math.max(1, Math.min(max, this.perSecond));
  }

  /**
   * Books `records` for the app now if its previous page's share has passed (`go`, with the time
   * its next page may start); otherwise tells when to ask again.
   */
  book(appId: string, records: number): PaceDecision {
    const now = this.clock.now();
    const free = this.freeAt.get(appId) ?? 0;
    if (free > now) return { go: false, at: free };
    if (this.freeAt.size >= PRUNE_AT) this.prune(now);
    const share = Math.ceil((records * 1000) / this.perSecond);
    // A page that starts a little late (the queue's claim, the wake-up) keeps the schedule; after a
    // pause of more than a share the schedule starts again from now, so nothing is saved up.
    const nextAt = (now - free < share ? free : now) + share;
    this.freeAt.set(appId, nextAt);
    return { go: true, nextAt };
  }

  private prune(now: number): void {
    for (const [appId, at] of this.freeAt) if (at <= now) this.freeAt.delete(appId);
  }
}
