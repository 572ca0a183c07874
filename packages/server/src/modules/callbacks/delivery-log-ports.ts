/**
 * The storage port of the durable delivery log (delivery-log.ts); its table is in
 * `src/storage/tables/delivery-log.ts`.
 */
export type AttemptStatus = 'success' | 'overlong' | 'failure';

export interface DeliveryRow {
  appId: string;
  ruleId: number;
  rule: string;
  callId: string;
  msgId: string;
  eventType: string;
  from: string;
  to: string;
  status: AttemptStatus;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  resend: boolean;
  at: number;
}

export interface LoggedDelivery extends DeliveryRow {
  id: number;
}

export interface DeliverySearch {
  msgId?: string;
  /** Records from or to this user. */
  user?: string;
  rule?: string;
  status?: AttemptStatus;
  /** ms, inclusive. */
  since?: number;
  /** ms, exclusive. */
  until?: number;
  /** Rows with an id below this one (the previous page's last). */
  beforeId?: number;
  limit: number;
}

export type MinuteCounts = { minute: number; status: AttemptStatus; count: number };

export interface DeliveryLogRepository {
  /** Writes a batch of attempts in one statement (or a few). */
  appendDeliveries(rows: readonly DeliveryRow[]): Promise<void>;
  /** The app's attempts matching `search`, newest first (by id). */
  searchDeliveries(appId: string, search: DeliverySearch): Promise<LoggedDelivery[]>;
  /** The app's attempts since `since` (ms) counted per minute start and status. */
  countPerMinute(appId: string, since: number): Promise<MinuteCounts[]>;
  /** Deletes attempts at or before `cutoff`, a chunk per statement; returns how many. */
  deleteDeliveriesUpTo(cutoff: number): Promise<number>;
}
