/**
 * Recent callback attempts per app, for the console's live tail and its per-minute chart: a
 * bounded in-memory ring per app fed by `attempt.finished` events. It is a view of this process
 * only (each instance shows the attempts it made) and starts empty after a restart; the durable
 * facts stay in the metrics, the logs and the exception store.
 */
import type { RecentCallbackAttempt, RecentCallbacks } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { CallbackEvents } from './events.js';

/** Attempts kept per app. */
export const RECENT_LIMIT = 200;
/** Minutes covered by the per-minute counts. */
export const RECENT_MINUTES = 30;
const MINUTE = 60_000;

type Outcome = RecentCallbackAttempt['result'];

export class RecentAttempts {
  private readonly rings = new Map<string, RecentCallbackAttempt[]>();
  /** Per app: minute start → counts by result. */
  private readonly minutes = new Map<string, Map<number, Record<Outcome, number>>>();

  constructor(
    private readonly clock: Clock,
    private readonly limit = RECENT_LIMIT,
  ) {}

  /** Feeds the ring from the engine's events. */
  observe(events: CallbackEvents): void {
    events.on('attempt.finished', (e) =>
      this.add(e.appId, { at: this.clock.now(), rule: e.rule, callId: e.callId, result: e.outcome, latencyMs: e.latencyMs, error: e.error ?? null, resend: e.resend }),
    );
  }

  add(appId: string, attempt: RecentCallbackAttempt): void {
    let ring = this.rings.get(appId);
    if (!ring) this.rings.set(appId, (ring = []));
    ring.push(attempt);
    // Trimmed in steps (the ring holds at most twice the limit), not by one on every attempt.
    if (ring.length >= 2 * this.limit) ring.splice(0, ring.length - this.limit);

    let perMinute = this.minutes.get(appId);
    if (!perMinute) this.minutes.set(appId, (perMinute = new Map()));
    const minute = Math.floor(attempt.at / MINUTE) * MINUTE;
    let counts = perMinute.get(minute);
    if (!counts) {
      perMinute.set(minute, (counts = { success: 0, overlong: 0, failure: 0 }));
      // A new minute: forget minutes older than the window, so memory stays bounded per app.
      const oldest = minute - (RECENT_MINUTES - 1) * MINUTE;
      for (const key of perMinute.keys()) if (key < oldest) perMinute.delete(key);
    }
    counts[attempt.result]++;
  }

  /** Newest first, at most `limit`; per-minute counts for the last RECENT_MINUTES minutes, oldest first, gaps as zeros. */
  view(appId: string, limit = 50): RecentCallbacks {
    const ring = this.rings.get(appId) ?? [];
    const now = this.clock.now();
    const current = Math.floor(now / MINUTE) * MINUTE;
    const perMinute = this.minutes.get(appId);
    const minutes = Array.from({ length: RECENT_MINUTES }, (_, i) => {
      const start = current - (RECENT_MINUTES - 1 - i) * MINUTE;
      return { minute: start, ...(perMinute?.get(start) ?? { success: 0, overlong: 0, failure: 0 }) };
    });
    return { now, attempts: ring.slice(-Math.min(limit, this.limit)).reverse(), minutes };
  }
}
