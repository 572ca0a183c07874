/** The budget per key inside a shared pool: at most `limit` of one key started, the rest in that key's own FIFO. */
import { describe, expect, it } from 'vitest';
import { KeyBudget, type BudgetLane, type BudgetWaiter } from '../../src/modules/outbound/key-budget.js';

/** A waiter that records its start; `done()` releases its slot, `abandon()` is its deadline passing while it waits. */
class Waiter implements BudgetWaiter {
  abandoned = false;
  lane: BudgetLane | undefined;
  constructor(
    readonly name: string,
    private readonly log: string[],
  ) {}
  start(lane: BudgetLane): void {
    this.lane = lane;
    this.log.push(this.name);
  }
  done(): void {
    this.lane?.release();
  }
  abandon(): void {
    this.abandoned = true;
  }
}

function setup(limit: number) {
  const budget = new KeyBudget(limit);
  const started: string[] = [];
  const enter = (key: string, name: string, scope = 'http://receiver') => {
    const waiter = new Waiter(name, started);
    budget.enter(scope, key, waiter);
    return waiter;
  };
  return { budget, started, enter };
}

describe('connection budget per key', () => {
  it('starts at most `limit` waiters of one key and queues the rest', () => {
    const { budget, started, enter } = setup(2);
    for (let i = 1; i <= 5; i++) enter('rule:1', `a${i}`);
    expect(started).toEqual(['a1', 'a2']);
    expect(budget.active).toBe(2);
    expect(budget.lane('http://receiver', 'rule:1')?.queued).toBe(3);
  });

  it("never makes another key wait for a full key's slots, in the same scope", () => {
    const { started, enter } = setup(2);
    for (let i = 1; i <= 5; i++) enter('rule:1', `a${i}`);
    enter('rule:2', 'b1');
    enter('rule:2', 'b2');
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('keeps a separate budget per scope (origin) for the same key', () => {
    const { started, enter } = setup(1);
    enter('rule:1', 'here', 'http://one');
    enter('rule:1', 'there', 'http://two');
    enter('rule:1', 'here-later', 'http://one');
    expect(started).toEqual(['here', 'there']);
  });

  it('starts queued waiters of a key in FIFO order as slots are released', () => {
    const { started, enter } = setup(2);
    const waiters = [1, 2, 3, 4, 5].map((i) => enter('rule:1', `a${i}`));
    waiters[1]?.done();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    waiters[0]?.done();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4']);
    waiters[3]?.done();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('puts a new waiter behind queued ones even when a slot is momentarily free', () => {
    const { started, enter } = setup(1);
    const first = enter('rule:1', 'a1');
    enter('rule:1', 'a2');
    first.done();
    enter('rule:1', 'a3');
    expect(started).toEqual(['a1', 'a2']);
  });

  it('releases the slot of a failed request the same way as of a completed one', () => {
    // The sender releases from undici's onError as from onComplete; a release is a release.
    const { budget, started, enter } = setup(1);
    const failed = enter('association:7', 'p1');
    enter('association:7', 'p2');
    failed.done();
    expect(started).toEqual(['p1', 'p2']);
    expect(budget.active).toBe(1);
  });

  it('skips a waiter whose deadline passed while it was queued and gives the slot to the next', () => {
    const { budget, started, enter } = setup(1);
    const first = enter('rule:1', 'a1');
    const expired = enter('rule:1', 'a2');
    enter('rule:1', 'a3');
    expired.abandon();
    first.done();
    expect(started).toEqual(['a1', 'a3']);
    expect(expired.lane).toBeUndefined();
    expect(budget.active).toBe(1);
  });

  it('drops an idle key and reports idle once every started waiter is released', async () => {
    const { budget, enter } = setup(1);
    const a = enter('rule:1', 'a1');
    const b = enter('rule:1', 'a2');
    let idle = false;
    const whenIdle = budget.idle().then(() => (idle = true));
    a.done();
    await Promise.resolve();
    expect(idle).toBe(false);
    expect(budget.lane('http://receiver', 'rule:1')).toBeDefined();
    b.done();
    await whenIdle;
    expect(idle).toBe(true);
    expect(budget.active).toBe(0);
    expect(budget.lane('http://receiver', 'rule:1')).toBeUndefined();
  });

  it('survives a waiter that releases its slot as soon as it starts (a dispatch that fails at once)', () => {
    const budget = new KeyBudget(1);
    const started: string[] = [];
    const instant = (name: string): BudgetWaiter => ({
      abandoned: false,
      start(lane) {
        started.push(name);
        lane.release();
      },
    });
    const holder = new Waiter('held', started);
    budget.enter('s', 'k', holder);
    for (let i = 1; i <= 3; i++) budget.enter('s', 'k', instant(`x${i}`));
    holder.done();
    expect(started).toEqual(['held', 'x1', 'x2', 'x3']);
    expect(budget.active).toBe(0);
    expect(budget.lane('s', 'k')).toBeUndefined();
  });

  it('refuses a budget below 1', () => {
    expect(() => new KeyBudget(0)).toThrow(RangeError);
  });
});
