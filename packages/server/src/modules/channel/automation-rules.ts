/**
 * The rules of a skill group's automation (contract 6.4), pure: whether the group is open at a
 * moment (business hours in its time zone, holidays), the checks a saved setting must pass, and
 * the next timer step of an open conversation (re-offer, idle warning, auto-close).
 */
import type { AutomationSettings } from '@parley/protocol';

const MINUTE = 60_000;

/** The first problem of `settings` that the schema cannot see (400 `invalid_request` detail), or undefined. */
export function automationProblem(settings: AutomationSettings): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: settings.time_zone });
  } catch {
    return `time_zone: unknown time zone ${JSON.stringify(settings.time_zone)}`;
  }
  for (const [i, period] of settings.business_hours.entries()) {
    if (period.from >= period.to) return `business_hours[${i}]: from must be before to`;
  }
  for (const [i, day] of settings.holidays.entries()) {
    const parsed = new Date(`${day}T00:00:00Z`);
    if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) return `holidays[${i}]: not a calendar date`;
  }
  const { idle_warning_minutes: warn = 0, auto_close_minutes: close = 0 } = settings;
  if (warn > 0 && close > 0 && warn >= close) return 'idle_warning_minutes: must be less than auto_close_minutes';
  return undefined;
}

/** Weekday (0 Sunday), YYYY-MM-DD and HH:MM of `at` in `timeZone`. */
export function localTime(at: number, timeZone: string): { day: number; date: string; hhmm: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { day, date: `${get('year')}-${get('month')}-${get('day')}`, hhmm: `${get('hour')}:${get('minute')}` };
}

/** Whether the group is open at `at`: not a holiday, and inside a period (no periods: always). */
export function isOpen(settings: Pick<AutomationSettings, 'time_zone' | 'business_hours' | 'holidays'>, at: number): boolean {
  const local = localTime(at, settings.time_zone);
  if (settings.holidays.includes(local.date)) return false;
  if (settings.business_hours.length === 0) return true;
  return settings.business_hours.some((p) => p.day === local.day && p.from <= local.hhmm && local.hhmm < p.to);
}

/** Whether any timer is on (a conversation then gets an automation job). */
export const hasTimers = (s: AutomationSettings): boolean => (s.idle_warning_minutes ?? 0) > 0 || (s.auto_close_minutes ?? 0) > 0 || (s.reoffer_minutes ?? 0) > 0;

export interface TimerState {
  state: 'waiting' | 'processing' | 'closed';
  queuedAt: number;
  /** The customer's last message (or the opening). */
  lastCustomerAt: number;
  idleWarnedAt: number | null;
  /** When it was last re-offered (null: never). */
  reofferedAt: number | null;
}

export type TimerStep = { action: 'stop' } | { action: 'reoffer' | 'idle_warning' | 'auto_close'; at: number };

/**
 * The next thing to do for a conversation and when (possibly already past: then it is due): re-offer
 * a waiting one after `reoffer_minutes` of waiting, and again after each further period; for one being processed, warn after `idle_warning_minutes` without a customer
 * message (once per silence) and close after `auto_close_minutes`. `stop` when nothing is left.
 */
export function nextTimerStep(settings: AutomationSettings, conv: TimerState): TimerStep {
  if (conv.state === 'closed') return { action: 'stop' };
  const steps: Array<{ action: 'reoffer' | 'idle_warning' | 'auto_close'; at: number }> = [];
  const reoffer = (settings.reoffer_minutes ?? 0) * MINUTE;
  if (conv.state === 'waiting' && reoffer > 0) {
    steps.push({ action: 'reoffer', at: Math.max(conv.queuedAt, conv.reofferedAt ?? 0) + reoffer });
  }
  if (conv.state === 'processing') {
    const warn = (settings.idle_warning_minutes ?? 0) * MINUTE;
    const close = (settings.auto_close_minutes ?? 0) * MINUTE;
    const warned = conv.idleWarnedAt !== null && conv.idleWarnedAt >= conv.lastCustomerAt;
    if (warn > 0 && !warned) steps.push({ action: 'idle_warning', at: conv.lastCustomerAt + warn });
    if (close > 0) steps.push({ action: 'auto_close', at: conv.lastCustomerAt + close });
  }
  if (steps.length === 0) return { action: 'stop' };
  return steps.reduce((a, b) => (b.at < a.at ? b : a));
}

/** The queue notice's text with its position. */
export const queueNoticeText = (text: string, position: number): string => text.replaceAll('{position}', String(position));
