/**
 * The durable delivery log: every post-send callback attempt (rule, msg_id, users, status, HTTP
 * status, duration, error, time), shared by all instances through the database, kept for the
 * exception store's retention, searchable per app, and the source of the console's live tail.
 *
 * Attempts arrive as the engine's `attempt.finished` events and are written in batches off the
 * delivery path: at most BATCH_ROWS at once, or what gathered within FLUSH_MS. A read flushes
 * this instance's pending rows first (so a request sees its own attempts); other instances' rows
 * show once their batch is written, FLUSH_MS later at most. A batch that cannot be written is
 * reported and dropped: the log never slows or fails a delivery.
 */
import { DELIVERY_LOG_DEFAULT_LIMIT, type DeliveryLogEntry, type DeliveryLogQuery, type RecentCallbacks } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { DeliveryLogRepository, DeliveryRow, LoggedDelivery } from './delivery-log-ports.js';
import type { CallbackEvents } from './events.js';

export const FLUSH_MS = 200;
export const BATCH_ROWS = 500;
/** Minutes covered by the live tail's per-minute counts. */
export const RECENT_MINUTES = 30;
const MINUTE = 60_000;

export function entryOf(row: LoggedDelivery): DeliveryLogEntry {
  return {
    at: row.at,
    rule: row.rule,
    callId: row.callId,
    msg_id: row.msgId,
    eventType: row.eventType,
    from: row.from,
    to: row.to,
    status: row.status,
    http_status: row.httpStatus,
    duration_ms: row.durationMs,
    error: row.error,
    resend: row.resend,
  };
}

export class DeliveryLog {
  private pending: DeliveryRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: DeliveryLogRepository,
    private readonly clock: Clock,
    private readonly onError: (error: unknown, rows: number) => void,
  ) {}

  /** Feeds the log from the engine's events. */
  observe(events: CallbackEvents): void {
    events.on('attempt.finished', (e) =>
      this.add({
        appId: e.appId,
        ruleId: e.ruleId,
        rule: e.rule,
        callId: e.callId ?? '',
        msgId: e.msgId ?? '',
        eventType: e.eventType ?? '',
        from: e.from ?? '',
        to: e.to ?? '',
        status: e.outcome,
        httpStatus: e.httpStatus ?? null,
        durationMs: Math.max(0, Math.round(e.latencyMs)),
        error: e.error ?? null,
        resend: e.resend,
        at: this.clock.now(),
      }),
    );
  }

  add(row: DeliveryRow): void {
    this.pending.push(row);
    if (this.pending.length >= BATCH_ROWS) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending (after any batch being written); resolves once it is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    if (rows.length > 0) {
      this.writing = this.writing.then(() => this.repo.appendDeliveries(rows)).catch((error: unknown) => this.onError(error, rows.length));
    }
    return this.writing;
  }

  /** The app's attempts matching the query, newest first; `cursor` when another page may follow. */
  async search(appId: string, query: DeliveryLogQuery): Promise<{ entities: DeliveryLogEntry[]; cursor?: string }> {
    await this.flush();
    const limit = query.limit ?? DELIVERY_LOG_DEFAULT_LIMIT;
    const rows = await this.repo.searchDeliveries(appId, {
      ...(query.msg_id !== undefined ? { msgId: query.msg_id } : {}),
      ...(query.user !== undefined ? { user: query.user.toLowerCase() } : {}),
      ...(query.rule !== undefined ? { rule: query.rule } : {}),
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.since !== undefined ? { since: query.since } : {}),
      ...(query.until !== undefined ? { until: query.until } : {}),
      ...(query.cursor !== undefined ? { beforeId: Number(query.cursor) } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return rows.length > limit && last ? { entities: page.map(entryOf), cursor: String(last.id) } : { entities: page.map(entryOf) };
  }

  /** The console's live tail: the last attempts, newest first, and per-minute counts of the last RECENT_MINUTES minutes. */
  async view(appId: string, limit = 50): Promise<RecentCallbacks> {
    await this.flush();
    const now = this.clock.now();
    const current = Math.floor(now / MINUTE) * MINUTE;
    const first = current - (RECENT_MINUTES - 1) * MINUTE;
    const [rows, counts] = await Promise.all([this.repo.searchDeliveries(appId, { limit }), this.repo.countPerMinute(appId, first)]);
    const byMinute = new Map<number, { success: number; overlong: number; failure: number }>();
    for (const c of counts) {
      let m = byMinute.get(c.minute);
      if (!m) byMinute.set(c.minute, (m = { success: 0, overlong: 0, failure: 0 }));
      m[c.status] += c.count;
    }
    const minutes = Array.from({ length: RECENT_MINUTES }, (_, i) => {
      const start = first + i * MINUTE;
      return { minute: start, ...(byMinute.get(start) ?? { success: 0, overlong: 0, failure: 0 }) };
    });
    const attempts = rows.map((r) => ({ at: r.at, rule: r.rule, callId: r.callId, result: r.status, latencyMs: r.durationMs, error: r.error, resend: r.resend }));
    return { now, attempts, minutes };
  }

  /** Deletes attempts older than the retention; returns how many. */
  sweep(retentionMs: number): Promise<number> {
    return this.repo.deleteDeliveriesUpTo(this.clock.now() - retentionMs);
  }
}
