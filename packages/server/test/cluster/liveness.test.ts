/**
 * The liveness rule: an instance is dead when its beat has not moved for the timeout on the
 * observer's clock; a slow instance whose beat moves is never dead, whatever its own clock says.
 */
import { describe, expect, it } from 'vitest';
import { Liveness } from '../../src/modules/cluster/liveness.js';
import type { InstanceRecord } from '../../src/modules/cluster/ports.js';
import { FakeClock } from '../helpers/clock.js';

const row = (id: string, beat: number, heartbeatAt = 0): InstanceRecord => ({ id, beat, heartbeatAt, startedAt: 0, inFlight: 0 });

describe('instance liveness', () => {
  it('declares an instance dead once its beat has not moved for the timeout, and not a millisecond before', () => {
    const clock = new FakeClock();
    const liveness = new Liveness(clock, 3_000);
    expect(liveness.observe([row('a', 1), row('b', 7)], 'a')).toEqual([]);
    clock.advance(2_999);
    expect(liveness.observe([row('a', 4), row('b', 7)], 'a')).toEqual([]);
    expect(liveness.alive('b')).toBe(true);
    clock.advance(1);
    expect(liveness.observe([row('a', 5), row('b', 7)], 'a')).toEqual([{ id: 'b', beat: 7 }]);
    expect(liveness.alive('b')).toBe(false);
  });

  it('keeps a slow instance alive as long as its beat moves, however long ago its own clock says it beat', () => {
    const clock = new FakeClock();
    const liveness = new Liveness(clock, 3_000);
    // Its clock is an hour behind ours: only the beat counter is compared.
    for (let beat = 1; beat <= 30; beat++) {
      expect(liveness.observe([row('slow', beat, clock.now() - 3_600_000)], 'me')).toEqual([]);
      clock.advance(1_000);
    }
    expect(liveness.ageMs('slow')).toBe(1_000);
  });

  it('never judges itself, and forgets instances whose row left', () => {
    const clock = new FakeClock();
    const liveness = new Liveness(clock, 3_000);
    liveness.observe([row('me', 1), row('gone', 1)], 'me');
    clock.advance(10_000);
    expect(liveness.observe([row('me', 1)], 'me')).toEqual([]);
    // Back with the same beat (e.g. a clean stop and a restart under the same id): timed afresh.
    expect(liveness.observe([row('me', 1), row('gone', 1)], 'me')).toEqual([]);
    expect(liveness.ageMs('gone')).toBe(0);
  });

  it('times a new observer from its first look: it waits the full timeout before declaring anyone dead', () => {
    const clock = new FakeClock();
    const liveness = new Liveness(clock, 3_000);
    clock.advance(60_000);
    expect(liveness.observe([row('b', 1, 0)], 'a')).toEqual([]);
    clock.advance(3_000);
    expect(liveness.observe([row('b', 1, 0)], 'a')).toEqual([{ id: 'b', beat: 1 }]);
  });
});
