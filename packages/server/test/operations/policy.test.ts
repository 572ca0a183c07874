/** The operator events' pure rules: the retry schedule and when a stored key is a day from expiry. */
import { describe, expect, it } from 'vitest';
import { EXPIRING_LEAD_MS, expiringCutoff, nextOperatorAttempt, OPERATOR_ATTEMPTS } from '../../src/modules/operations/policy.js';

describe('operator event retries', () => {
  it('waits 10 s, 1 min, 5 min, 30 min (±20 %) after the 1st to 4th failure, and gives up after the 5th', () => {
    expect(OPERATOR_ATTEMPTS).toBe(5);
    expect([1, 2, 3, 4].map((n) => nextOperatorAttempt(n, 0.5))).toEqual([10_000, 60_000, 300_000, 1_800_000].map((delayMs) => ({ action: 'retry', delayMs })));
    expect(nextOperatorAttempt(1, 0)).toEqual({ action: 'retry', delayMs: 8_000 });
    expect(nextOperatorAttempt(1, 0.999_999).action === 'retry' && nextOperatorAttempt(1, 0.999_999)).toMatchObject({ delayMs: 12_000 });
    expect(nextOperatorAttempt(5, 0.5)).toEqual({ action: 'give_up' });
    expect(nextOperatorAttempt(9, 0.5)).toEqual({ action: 'give_up' });
  });
});

describe('a stored key one day from expiry', () => {
  const now = Date.UTC(2026, 10, 24, 12, 0, 0);
  it('is one whose first record was stored retention − 1 day ago or earlier', () => {
    expect(EXPIRING_LEAD_MS).toBe(24 * 3_600_000);
    expect(expiringCutoff(now, 72 * 3_600_000)).toBe(now - 48 * 3_600_000);
  });
  it('is every stored key when the retention is a day or less', () => {
    expect(expiringCutoff(now, 24 * 3_600_000)).toBe(now);
    expect(expiringCutoff(now, 3_600_000)).toBe(now);
  });
});
