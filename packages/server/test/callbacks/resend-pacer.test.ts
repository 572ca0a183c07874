/** The per-app pacing of exception-store re-sends, on the injected clock. */
import { describe, expect, it } from 'vitest';
import { ResendPacer } from '../../src/modules/callbacks/resend-pacer.js';
import { FakeClock } from '../helpers/clock.js';

describe('resend pacer', () => {
  it('books each page its share of the rate, per app, and makes the next page wait for it', () => {
    const clock = new FakeClock(1_000_000);
    const pacer = new ResendPacer(200, clock);
    expect(pacer.pageSize(32)).toBe(32);
    expect(pacer.book('a', 32)).toEqual({ go: true, nextAt: 1_000_160 });
    // Another re-send of the same app waits; another app does not.
    expect(pacer.book('a', 32)).toEqual({ go: false, at: 1_000_160 });
    expect(pacer.book('b', 32)).toEqual({ go: true, nextAt: 1_000_160 });
    clock.advance(159);
    expect(pacer.book('a', 32)).toEqual({ go: false, at: 1_000_160 });
    clock.advance(1);
    expect(pacer.book('a', 32)).toEqual({ go: true, nextAt: 1_000_320 });
  });

  it('keeps the schedule when a page starts a little late, and saves nothing up over a pause', () => {
    const clock = new FakeClock(0);
    const pacer = new ResendPacer(100, clock);
    expect(pacer.book('a', 10)).toEqual({ go: true, nextAt: 100 });
    clock.set(130);
    // 30 ms late: the next page is still due at 200, so the rate holds on average.
    expect(pacer.book('a', 10)).toEqual({ go: true, nextAt: 200 });
    clock.set(5_000);
    // After a long pause the schedule starts from now: no burst of saved-up pages.
    expect(pacer.book('a', 10)).toEqual({ go: true, nextAt: 5_100 });
    expect(pacer.book('a', 10)).toEqual({ go: false, at: 5_100 });
  });

  it('makes pages smaller at rates below a page a second', () => {
    const clock = new FakeClock(0);
    const pacer = new ResendPacer(5, clock);
    expect(pacer.pageSize(32)).toBe(5);
    expect(pacer.book('a', pacer.pageSize(32))).toEqual({ go: true, nextAt: 1_000 });
  });
});
