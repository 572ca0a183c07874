import { describe, expect, it } from 'vitest';
import { liveOverlap, liveSecrets, overlapAfterRotation, overlapOf } from '../../src/kernel/secret-overlap.js';

const NOW = 1_800_000_000_000;

describe('secret overlap (contract 6.6)', () => {
  it('keeps the previous secret for the overlap after a rotation, none for 0', () => {
    expect(overlapAfterRotation('old', 86_400, NOW)).toEqual({ previous: 'old', until: NOW + 86_400_000 });
    expect(overlapAfterRotation('old', 0, NOW)).toBeNull();
    expect(() => overlapAfterRotation('old', -1, NOW)).toThrow(RangeError);
    expect(() => overlapAfterRotation('old', 1.5, NOW)).toThrow(RangeError);
  });

  it('answers the current secret first, then the previous one until the overlap ends', () => {
    const overlap = overlapAfterRotation('old', 60, NOW);
    expect(liveSecrets('new', overlap, NOW)).toEqual(['new', 'old']);
    expect(liveSecrets('new', overlap, NOW + 59_999)).toEqual(['new', 'old']);
    expect(liveSecrets('new', overlap, NOW + 60_000)).toEqual(['new']);
    expect(liveSecrets('new', null, NOW)).toEqual(['new']);
    expect(liveOverlap(overlap, NOW + 60_000)).toBeNull();
  });

  it('reads the two storage columns as an overlap only when both are set', () => {
    expect(overlapOf('old', NOW)).toEqual({ previous: 'old', until: NOW });
    expect(overlapOf(null, NOW)).toBeNull();
    expect(overlapOf('old', null)).toBeNull();
  });
});
