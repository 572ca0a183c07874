/**
 * The callback-rule ban state machine (spec section 3, contract 4.5), as pure functions of the
 * state, an observation and the time. No I/O, no timers: the delivery engine feeds it attempt
 * outcomes and the current time, persists the returned state, and acts on the returned events.
 *
 *            90 failed attempts in any 30 s            ban duration elapsed
 *   active ─────────── or ──────────────────▶ banned ─────────────────────▶ active
 *            90 over-long 200s in any 30 s
 *
 * Definitions (documented in docs/callbacks.md):
 * - A *failure* is one failed attempt (non-200, refused connection, timeout). A record whose
 *   attempt and immediate retry both fail counts two failures (spec: "a failure is recorded",
 *   "a second failure is recorded").
 * - An *over-long* answer is a 200 whose body is longer than 1,000 characters.
 * - "Within 30 s" is a sliding window: the ban fires when the 90th event arrives less than 30 s
 *   after the oldest of the last 90 events of the same kind (an event exactly 30 s old is out).
 *   The two kinds are counted separately; neither adds to the other.
 * - The ban count of a new ban is the previous count + 1 when the previous ban ended at most 24 h
 *   before this one starts ("consecutive within 24 h"), else 1; it is capped at 5.
 *   Duration = count × 5 min, so 5, 10, 15, 20, 25, 25, ... minutes.
 * - On a ban both windows are cleared: after the ban the rule starts from a clean slate.
 * - Outcomes observed while banned (attempts that were already in flight) change nothing.
 *
 * The state is plain JSON-serialisable data so it can live in a database row or in Redis.
 *
 * The rule is also written in Lua in redis-bans.ts (shared state, applied atomically in Redis).
 * One table of cases, test/callbacks/ban-cases.ts, runs against both and keeps them equal: a
 * change to the rule here goes into that script and into the table.
 */

export const BAN_THRESHOLD = 90;
export const BAN_WINDOW_MS = 30_000;
export const BAN_UNIT_MS = 5 * 60_000;
export const BAN_COUNT_CAP = 5;
export const BAN_STREAK_MS = 24 * 3_600_000;

export type RuleStatus = 'active' | 'banned';

export interface BanState {
  status: RuleStatus;
  /** Count of the current or latest ban, 0 when the rule was never banned (capped at 5). */
  banCount: number;
  /** While banned: when the ban ends (ms). */
  bannedUntil: number | null;
  /** When the latest ban ended or will end (ms); drives the 24 h streak. */
  lastBanEnd: number | null;
  /** Times (ms) of recent failed attempts, oldest first, at most 89 entries. */
  failures: number[];
  /** Times (ms) of recent over-long 200 answers, oldest first, at most 89 entries. */
  overlong: number[];
}

export type BanReason = 'failures' | 'overlong';

export type BanEvent =
  | { type: 'rule.banned'; at: number; banCount: number; bannedUntil: number; durationMs: number; reason: BanReason }
  | { type: 'rule.unbanned'; at: number; banCount: number };

/** What one delivery attempt means to the ban machine. Successes do not touch the windows. */
export type BanObservation = 'failure' | 'overlong';

export interface BanStep {
  state: BanState;
  events: BanEvent[];
}

export function initialBanState(): BanState {
  return { status: 'active', banCount: 0, bannedUntil: null, lastBanEnd: null, failures: [], overlong: [] };
}

/** Duration of the n-th consecutive ban (n ≥ 1): min(n, 5) × 5 minutes. */
export function banDurationMs(consecutiveBans: number): number {
  return Math.min(Math.max(1, Math.floor(consecutiveBans)), BAN_COUNT_CAP) * BAN_UNIT_MS;
}

/** Ends an elapsed ban. Call before deciding whether to send; it is a no-op otherwise. */
export function expireBan(state: BanState, now: number): BanStep {
  if (state.status !== 'banned' || state.bannedUntil === null || now < state.bannedUntil) return { state, events: [] };
  return {
    state: { ...state, status: 'active', bannedUntil: null, failures: [], overlong: [] },
    events: [{ type: 'rule.unbanned', at: now, banCount: state.banCount }],
  };
}

/** True while the rule must not send at `now` (after expireBan, equivalent to status === 'banned'). */
export function isBanned(state: BanState, now: number): boolean {
  return state.status === 'banned' && state.bannedUntil !== null && now < state.bannedUntil;
}

/** Keeps the events of the sliding window ending at `now`, plus the new one. */
function pushInWindow(times: readonly number[], now: number): number[] {
  const from = now - BAN_WINDOW_MS;
  const kept = times.filter((t) => t > from);
  kept.push(now);
  kept.sort((a, b) => a - b);
  return kept;
}

/** Records one failed attempt or over-long answer observed at `now`. */
export function observe(state: BanState, observation: BanObservation, now: number): BanStep {
  const expired = expireBan(state, now);
  const current = expired.state;
  if (current.status === 'banned') return expired;

  const key = observation === 'failure' ? 'failures' : 'overlong';
  const times = pushInWindow(current[key], now);
  if (times.length < BAN_THRESHOLD) {
    return { state: { ...current, [key]: times }, events: expired.events };
  }

  const streak = current.lastBanEnd !== null && now - current.lastBanEnd <= BAN_STREAK_MS;
  const banCount = streak ? Math.min(current.banCount + 1, BAN_COUNT_CAP) : 1;
  const durationMs = banDurationMs(banCount);
  const bannedUntil = now + durationMs;
  return {
    state: { status: 'banned', banCount, bannedUntil, lastBanEnd: bannedUntil, failures: [], overlong: [] },
    events: [
      ...expired.events,
      { type: 'rule.banned', at: now, banCount, bannedUntil, durationMs, reason: observation === 'failure' ? 'failures' : 'overlong' },
    ],
  };
}

/** Validates state read back from storage; anything malformed becomes a fresh state. */
export function parseBanState(value: unknown): BanState {
  if (typeof value !== 'object' || value === null) return initialBanState();
  const v = value as Partial<BanState>;
  const nums = (a: unknown): number[] => (Array.isArray(a) ? a.filter((x): x is number => typeof x === 'number').slice(-(BAN_THRESHOLD - 1)) : []);
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const status: RuleStatus = v.status === 'banned' && num(v.bannedUntil) !== null ? 'banned' : 'active';
  return {
    status,
    banCount: typeof v.banCount === 'number' ? Math.min(Math.max(0, Math.floor(v.banCount)), BAN_COUNT_CAP) : 0,
    bannedUntil: status === 'banned' ? num(v.bannedUntil) : null,
    lastBanEnd: num(v.lastBanEnd),
    failures: nums(v.failures),
    overlong: nums(v.overlong),
  };
}
