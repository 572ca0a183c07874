/**
 * Re-drive after a ban (opt-in per rule, `redrive: true`), pure: which stored records a rule's
 * ended ban re-sends, and under which date keys to look for them. The ban ended at `at` after
 * `banDurationMs(banCount)`; its end may be noticed up to one ban tick late, so the window reaches
 * back that much further. Within it, a record is re-driven when it is the rule's, was stored
 * because of the ban (its error says so), and was never re-sent.
 */
import { dateKey } from '@parley/protocol';
import { banDurationMs } from './ban.js';
import type { StoredRecord } from './ports.js';

/** The last error of a record stored because its rule was banned (delivery.ts writes it). */
export const BANNED_ERROR_PREFIX = 'rule banned until ';

export interface RedriveWindow {
  ruleId: number;
  /** Stored at or after this (ms). */
  from: number;
  /** Stored at or before this (ms): when the ban was seen to end. */
  to: number;
}

const KEY_STEP_MS = 10 * 60_000;

export function redriveWindow(ruleId: number, unbannedAt: number, banCount: number, lateByMs: number): RedriveWindow {
  return { ruleId, from: unbannedAt - banDurationMs(banCount) - lateByMs, to: unbannedAt };
}

/** The date keys (in `timeZone`) whose 10-minute windows meet the re-drive window, ascending. */
export function redriveKeys(window: RedriveWindow, timeZone: string): string[] {
  const keys = new Set<string>();
  for (let t = window.from; t < window.to; t += KEY_STEP_MS) keys.add(dateKey(t, timeZone));
  keys.add(dateKey(window.to, timeZone));
  return [...keys].sort();
}

export function isRedriven(record: StoredRecord, window: RedriveWindow): boolean {
  return (
    record.ruleId === window.ruleId &&
    record.lastResend === null &&
    record.lastError.startsWith(BANNED_ERROR_PREFIX) &&
    record.storedAt >= window.from &&
    record.storedAt <= window.to
  );
}

/** Stored rows one re-drive page looks through for the rule's records. */
export const REDRIVE_SCAN_ROWS = 256;

export interface RedrivePage {
  records: StoredRecord[];
  /** The id the next page starts after (the last row looked at), when one may follow. */
  nextAfterId: number | undefined;
}

/**
 * One re-drive page from `rows` (a key's rows in id order, at most `scan` + 1 of them): up to
 * `size` re-driven records, so that the pace counts records sent rather than rows read.
 */
export function redrivePage(rows: readonly StoredRecord[], window: RedriveWindow, size: number, scan = REDRIVE_SCAN_ROWS): RedrivePage {
  const records: StoredRecord[] = [];
  const looked = Math.min(rows.length, scan);
  for (let i = 0; i < looked; i++) {
    const row = rows[i] as StoredRecord;
    if (isRedriven(row, window)) records.push(row);
    if (records.length === size) return { records, nextAfterId: i + 1 < rows.length ? row.id : undefined };
  }
  return { records, nextAfterId: rows.length > scan ? rows[looked - 1]?.id : undefined };
}
