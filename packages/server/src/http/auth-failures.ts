/**
 * Rate limits that keep unauthenticated callers away from real clients' budgets. A target (an
 * IM app, a REST association) has its own limit, charged only once a request has proved who it
 * is; a request whose credentials fail is counted per client IP and target instead, and an IP
 * past its failure limit there is refused before any credential is checked.
 */
import { AppError } from '../kernel/errors.js';
import type { FixedWindowLimiter } from './fixed-window.js';

export interface GuardedLimits {
  /** The target's own budget (e.g. 100/s per IM app): authenticated requests only. */
  own: FixedWindowLimiter;
  /** Failed authentications per `ip|target` (PARLEY_AUTH_FAILURE_LIMIT a minute). */
  failures: FixedWindowLimiter;
}

/** Window of the failure counts. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

export const failureKey = (ip: string, target: string): string => `${ip}|${target}`;

/** 429 with Retry-After; `code` is the surface's (`rate_limited` or `reach_limit`). */
export function tooMany(code: 'rate_limited' | 'reach_limit', retryAfter: number): AppError {
  return new AppError(code, { retryAfter }, { headers: { 'retry-after': String(retryAfter) } });
}

/** Counts a failed authentication of `ip` at `target`. Never throws: the failure's own answer stands. */
export function noteFailure(limits: GuardedLimits, ip: string, target: string): void {
  try {
    const counted = limits.failures.take(failureKey(ip, target));
    if (typeof counted !== 'number') counted.catch(() => undefined);
  } catch {
    // A limiter that cannot count now leaves the answer as it is.
  }
}
