/**
 * When to try a reply push again (contract 3.4). Pure: the push handler passes the attempt
 * number, the receiver's Retry-After and a random number, and carries out the answer.
 */

/** Delay before attempt n+1 (index n-1 after the n-th failure); the first entry is the first try. */
export const PUSH_SCHEDULE_MS = [0, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000] as const;

/** Retry-After is honoured between these bounds. */
export const RETRY_AFTER_MIN_MS = 1_000;
export const RETRY_AFTER_MAX_MS = 3_600_000;
export const JITTER = 0.2;

export type PushDecision = { action: 'retry'; delayMs: number } | { action: 'give_up' };

/**
 * @param failedAttempts attempts made so far in this run of the schedule, all failed (>= 1)
 * @param retryAfterMs the receiver's Retry-After, if it sent one
 * @param random a number in [0, 1) for the jitter
 */
export function nextPushAttempt(failedAttempts: number, retryAfterMs: number | undefined, random: number): PushDecision {
  if (failedAttempts >= PUSH_SCHEDULE_MS.length) return { action: 'give_up' };
  const base = PUSH_SCHEDULE_MS[failedAttempts] as number;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random));
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs)) {
    const bounded = Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, retryAfterMs));
    return { action: 'retry', delayMs: Math.max(jittered, bounded) };
  }
  return { action: 'retry', delayMs: jittered };
}
