/** One timer for all request deadlines: each request is aborted at its own deadline, never before. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../src/modules/outbound/deadlines.js';

describe('request deadlines', () => {
  let deadlines: Deadlines;
  beforeEach(() => {
    vi.useFakeTimers();
    deadlines = new Deadlines(() => Date.now());
  });
  afterEach(() => {
    deadlines.close();
    vi.useRealTimers();
  });

  it('aborts a request with a TimeoutError at its deadline, not before', () => {
    const d = deadlines.start(1000);
    vi.advanceTimersByTime(999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('never aborts a request that finished, and forgets it', () => {
    const first = deadlines.start(1000);
    vi.advanceTimersByTime(500);
    const second = deadlines.start(1000);
    first.clear();
    expect(deadlines.pending).toBe(1);
    vi.advanceTimersByTime(600);
    expect(first.signal.aborted).toBe(false);
    expect(second.signal.aborted).toBe(false);
    vi.advanceTimersByTime(400);
    expect(second.signal.aborted).toBe(true);
    expect(deadlines.pending).toBe(0);
  });

  it('keeps each deadline when requests have different timeouts', () => {
    const long = deadlines.start(5000);
    vi.advanceTimersByTime(100);
    const short = deadlines.start(200);
    vi.advanceTimersByTime(200);
    expect(short.signal.aborted).toBe(true);
    expect(long.signal.aborted).toBe(false);
    vi.advanceTimersByTime(4699);
    expect(long.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(long.signal.aborted).toBe(true);
  });

  it('aborts every request due at once when each clears its own deadline on abort, as the sender does', () => {
    const due = Array.from({ length: 6 }, () => deadlines.start(1000));
    for (const d of due) d.signal.addEventListener('abort', () => d.clear());
    vi.advanceTimersByTime(1000);
    expect(due.map((d) => d.signal.aborted)).toEqual([true, true, true, true, true, true]);
    expect(deadlines.pending).toBe(0);
  });

  it('stays small when thousands of requests finish in order', () => {
    for (let i = 0; i < 5000; i++) deadlines.start(1000).clear();
    expect(deadlines.pending).toBe(0);
  });
});

describe('the deadline signal', () => {
  it('calls its abort listeners once, not the removed ones, and none added after the abort', () => {
    vi.useFakeTimers();
    const deadlines = new Deadlines(() => Date.now());
    const d = deadlines.start(100);
    const calls: string[] = [];
    const kept = () => calls.push('kept');
    const removed = () => calls.push('removed');
    d.signal.addEventListener('abort', kept);
    d.signal.addEventListener('abort', removed);
    d.signal.removeEventListener('abort', removed);
    vi.advanceTimersByTime(100);
    d.signal.addEventListener('abort', () => calls.push('late'));
    d.signal.abort(new Error('again'));
    expect(calls).toEqual(['kept']);
    expect((d.signal.reason as Error).name).toBe('TimeoutError');
    deadlines.close();
    vi.useRealTimers();
  });
});
