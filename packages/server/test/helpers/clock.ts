import type { Clock } from '../../src/kernel/clock.js';

/** A clock tests move by hand. Starts at a fixed instant so date keys are predictable. */
export class FakeClock implements Clock {
  constructor(private ms = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): number {
    this.ms += ms;
    return this.ms;
  }
}
