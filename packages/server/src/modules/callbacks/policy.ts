/**
 * Delivery policy of one callback record (spec 3 "Delivery of one callback", spec 8, contract 4.5):
 * one attempt plus exactly one immediate retry. Pure: the engine performs the attempts and asks
 * this module what an answer means and what to do next.
 *
 *   sent ──200──▶ succeeded            (body ≤ 1,000 characters)
 *   sent ──200──▶ succeeded, over-long (body > 1,000 characters; counted for the ban, not retried)
 *   sent ──other / refused / 10 s──▶ retried ──200──▶ succeeded
 *                                            └─fail──▶ stored (store_failed on) | dropped
 */
import type { OutboundResult } from '../outbound/ports.js';

/** Attempts per record: the first plus one immediate retry. */
export const MAX_ATTEMPTS = 2;
/** Per-attempt timeout (spec: connection or response timeout; contract: 10 s). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A 200 with a body longer than this many characters is over-long. */
export const MAX_ANSWER_CHARS = 1_000;
/**
 * Bytes of an answer read at most. A character is at most 4 bytes in UTF-8, so a body longer than
 * 4 × 1,001 bytes certainly has more than 1,000 characters; nothing past that is read.
 */
export const MAX_ANSWER_BYTES = 4 * (MAX_ANSWER_CHARS + 1);

export type AttemptOutcome =
  | { kind: 'success' }
  | { kind: 'overlong' }
  | { kind: 'failure'; error: string };

/** Characters of a string as Unicode code points (a surrogate pair is one character). */
export function characterCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });
const OVERLONG: AttemptOutcome = Object.freeze({ kind: 'overlong' });

export function classifyAttempt(result: OutboundResult): AttemptOutcome {
  if (result.status === 200) {
    // A string of at most MAX_ANSWER_CHARS UTF-16 units has at most as many characters: only a
    // longer one needs counting.
    const overlong = result.bodyTruncated || (result.body.length > MAX_ANSWER_CHARS && characterCount(result.body) > MAX_ANSWER_CHARS);
    return overlong ? OVERLONG : SUCCESS;
  }
  if (result.status !== undefined) return { kind: 'failure', error: `HTTP ${result.status}` };
  const e = result.error;
  return { kind: 'failure', error: e ? `${e.kind}: ${e.message}` : 'no response' };
}

export type NextStep = 'done' | 'retry' | 'exhausted';

/** What follows attempt number `attempt` (1-based) with `outcome`. */
export function nextStep(attempt: number, outcome: AttemptOutcome): NextStep {
  if (outcome.kind !== 'failure') return 'done';
  return attempt < MAX_ATTEMPTS ? 'retry' : 'exhausted';
}
