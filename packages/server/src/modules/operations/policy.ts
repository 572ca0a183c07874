/**
 * When operator events are sent again, and when a stored key is "one day from expiry". Pure:
 * the sender and the expiry check pass the numbers in and carry out the answer.
 */

/** Delay before attempt n+1 after the n-th failure; after the last entry the event is `failed`. */
export const OPERATOR_RETRY_MS = [10_000, 60_000, 300_000, 1_800_000] as const;
/** Attempts in all: the first and one per entry of the schedule. */
export const OPERATOR_ATTEMPTS = OPERATOR_RETRY_MS.length + 1;
export const OPERATOR_JITTER = 0.2;

export type OperatorSendDecision = { action: 'retry'; delayMs: number } | { action: 'give_up' };

/**
 * @param failedAttempts attempts made so far, all failed (>= 1)
 * @param random a number in [0, 1) for the jitter
 */
export function nextOperatorAttempt(failedAttempts: number, random: number): OperatorSendDecision {
  if (failedAttempts >= OPERATOR_ATTEMPTS) return { action: 'give_up' };
  const base = OPERATOR_RETRY_MS[failedAttempts - 1] as number;
  return { action: 'retry', delayMs: Math.round(base * (1 - OPERATOR_JITTER + 2 * OPERATOR_JITTER * random)) };
}

/** How long before a stored key's expiry `store.expiring` is sent. */
export const EXPIRING_LEAD_MS = 24 * 3_600_000;

/**
 * Records stored at or before the answer are within a day of their deletion (records are kept
 * `retentionMs`). With a retention of a day or less that is every record: the notice goes out
 * when the key is first looked at.
 */
export function expiringCutoff(now: number, retentionMs: number): number {
  return now - Math.max(0, retentionMs - EXPIRING_LEAD_MS);
}
