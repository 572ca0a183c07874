/**
 * The rules of a report, pure: the range of days in a time zone (checked, at most
 * REPORT_MAX_DAYS), each day's first instant in that zone (days are 23 or 25 hours long across a
 * daylight-saving change), and how a percentile is read from the two values around its rank.
 */
import { REPORT_MAX_DAYS } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';

export interface ReportDay {
  date: string;
  start: number;
  end: number;
}

export interface ReportRange {
  from: string;
  to: string;
  timeZone: string;
  days: ReportDay[];
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `at` in `timeZone`. */
function wallClock(at: number, timeZone: string): { date: string; msOfDay: number; asUtc: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  const msOfDay = ((hour * 60 + minute) * 60 + second) * 1000;
  return { date, msOfDay, asUtc: Date.UTC(year, month - 1, day) + msOfDay };
}

/** The zone's offset from UTC at `at`, in ms (whole seconds). */
const offsetAt = (at: number, timeZone: string): number => wallClock(at, timeZone).asUtc - Math.floor(at / 1000) * 1000;

/**
 * The first instant of `date` (YYYY-MM-DD) in `timeZone`: its local midnight, or, where the zone
 * skips midnight (a daylight-saving change at 00:00), the moment the day begins.
 */
export function dayStart(date: string, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  let at = wall - offsetAt(wall, timeZone);
  at = wall - offsetAt(at, timeZone);
  const local = wallClock(at, timeZone);
  if (local.date < date) at += DAY_MS - local.msOfDay;
  return at;
}

function checkedDate(value: string, field: 'from' | 'to'): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const utc = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(utc) || new Date(utc).toISOString().slice(0, 10) !== value) {
    throw new AppError('invalid_report_range', { detail: `${field}: ${JSON.stringify(value)} is not a date written YYYY-MM-DD` });
  }
  return utc;
}

/** The zone's canonical name (`utc` → `UTC`); 400 `invalid_report_range` for an unknown one. */
function checkedZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new AppError('invalid_report_range', { detail: `time_zone: unknown time zone ${JSON.stringify(timeZone)}` });
  }
}

/**
 * The days from `from` to `to` (both included) in `timeZone` (default UTC), each with its span.
 * 400 `invalid_report_range` for a malformed or unreal date, `to` before `from` or an unknown zone;
 * 400 `report_range_too_long` beyond REPORT_MAX_DAYS days.
 */
export function reportRange(query: { from: string; to: string; time_zone?: string | undefined }): ReportRange {
  const first = checkedDate(query.from, 'from');
  const last = checkedDate(query.to, 'to');
  const timeZone = checkedZone(query.time_zone ?? 'UTC');
  if (last < first) throw new AppError('invalid_report_range', { detail: `to (${query.to}) is before from (${query.from})` });
  const count = Math.round((last - first) / DAY_MS) + 1;
  if (count > REPORT_MAX_DAYS) throw new AppError('report_range_too_long', { days: count, max: REPORT_MAX_DAYS });
  const dates = Array.from({ length: count + 1 }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
  const starts = dates.map((date) => dayStart(date, timeZone));
  const days = dates.slice(0, count).map((date, i) => ({ date, start: starts[i]!, end: starts[i + 1]! }));
  return { from: query.from, to: query.to, timeZone, days, start: starts[0]!, end: starts[count]! };
}

/**
 * The p-th percentile (p in percent) of n sorted values, by linear interpolation between the
 * values at ranks ⌊r⌋ and ⌈r⌉, r = (n − 1) × p / 100 (ranks from 0): PostgreSQL's
 * `percentile_cont` and spreadsheets' PERCENTILE.INC. The median is p = 50.
 */
export function interpolate(count: number, percent: number, lower: number, upper: number): number {
  const fraction = (((count - 1) * percent) % 100) / 100;
  return lower + (upper - lower) * fraction;
}

/** Milliseconds as seconds, rounded to the millisecond. */
export const seconds = (ms: number): number => Math.round(ms) / 1000;

/** A mean score with two decimals. */
export const average = (sum: number, count: number): number | null => (count === 0 ? null : Math.round((sum / count) * 100) / 100);
