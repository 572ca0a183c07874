/**
 * The overlap of a rotated secret (contract 6.6), pure: after a rotation the previous secret
 * stays valid until `until` (ms). Whatever holds a secret keeps at most one previous one: a
 * rotation during an overlap replaces it with the secret just rotated out.
 */

export interface SecretOverlap<T> {
  previous: T;
  /** Epoch ms at which the previous secret stops being valid. */
  until: number;
}

/**
 * What a rotation at `now` leaves valid beside the new secret: `previous` until `now` plus the
 * overlap, or nothing for an overlap of 0.
 */
export function overlapAfterRotation<T>(previous: T, overlapSeconds: number, now: number): SecretOverlap<T> | null {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0) throw new RangeError(`overlap must be a whole number of seconds >= 0, not ${overlapSeconds}`);
  return overlapSeconds === 0 ? null : { previous, until: now + overlapSeconds * 1000 };
}

/** The overlap if it still runs at `now`, else null. */
export function liveOverlap<T>(overlap: SecretOverlap<T> | null | undefined, now: number): SecretOverlap<T> | null {
  return overlap && now < overlap.until ? overlap : null;
}

/** The secrets valid at `now`: the current one first, then the previous one while its overlap runs. */
export function liveSecrets<T>(current: T, overlap: SecretOverlap<T> | null | undefined, now: number): T[] {
  const live = liveOverlap(overlap, now);
  return live ? [current, live.previous] : [current];
}

/** The overlap of two nullable columns (previous value, until), as storage keeps it. */
export function overlapOf<T>(previous: T | null, until: number | null): SecretOverlap<T> | null {
  return previous !== null && until !== null ? { previous, until } : null;
}
