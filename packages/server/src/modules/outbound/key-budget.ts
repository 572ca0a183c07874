/**
 * A connection budget per budget key (a callback rule, a REST association) inside each shared
 * per-origin pool.
 *
 * The pool of an origin is shared by every rule and association whose receiver lives there. A
 * receiver that hangs holds every connection it is given until the request's deadline; without
 * a budget one hung rule can take the whole pool, and every other rule's requests to that origin
 * wait in the pool's shared queue behind it. Here at most `limit` requests of one key are handed
 * to the pool at once (the limit is below the pool size, so there is always room for another
 * key). The rest wait in the key's own FIFO queue, never in the pool's: a hung receiver holds at
 * most `limit` connections and delays only its own key's requests.
 *
 * A waiter whose deadline passes while it waits has already failed (its owner settles it as a
 * timeout); it is skipped when its turn comes rather than searched for and removed.
 */

/** What waits for a slot: started once it has one, and then releases it through its lane once. */
export interface BudgetWaiter {
  /** Called when the waiter has its slot; it must call `lane.release()` exactly once when done. */
  start(lane: BudgetLane): void;
  /** True once the waiter no longer wants its turn (it failed while it waited). */
  readonly abandoned: boolean;
}

/** The slots and the FIFO queue of one key on one origin. */
export class BudgetLane {
  /** Waiters started and not yet released. */
  active = 0;
  private queue: BudgetWaiter[] = [];
  private head = 0;

  constructor(
    private readonly budget: KeyBudget,
    readonly scope: string,
    readonly key: string,
  ) {}

  /** Waiters in the queue, abandoned ones included until their turn comes. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  enter(waiter: BudgetWaiter): void {
    if (this.active < this.budget.limit && this.queued === 0) this.begin(waiter);
    else this.queue.push(waiter);
  }

  /** One started waiter is done: the next live waiter of this key, if any, takes its slot. */
  release(): void {
    this.active--;
    while (this.active < this.budget.limit && this.head < this.queue.length) {
      const next = this.queue[this.head] as BudgetWaiter;
      this.queue[this.head++] = undefined as unknown as BudgetWaiter;
      if (!next.abandoned) this.begin(next);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      // Compact now and then rather than shifting on every start.
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.active === 0 && this.queued === 0) this.budget.forget(this);
    // Counted after the next waiter started, so the budget never looks idle in between.
    this.budget.released();
  }

  private begin(waiter: BudgetWaiter): void {
    this.active++;
    this.budget.started();
    waiter.start(this);
  }
}

export class KeyBudget {
  /** Lanes by scope (the origin), then by key; a lane is dropped when it is idle. */
  private readonly lanes = new Map<string, Map<string, BudgetLane>>();
  private total = 0;
  private idleWaiters: Array<() => void> = [];

  /** @param limit requests of one key started at once in one scope (at least 1). */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`the budget per key must be a positive integer (got ${limit})`);
  }

  /** Starts `waiter` now if its key has a free slot in `scope`, or queues it behind the key's others. */
  enter(scope: string, key: string, waiter: BudgetWaiter): void {
    let byKey = this.lanes.get(scope);
    if (!byKey) this.lanes.set(scope, (byKey = new Map()));
    let lane = byKey.get(key);
    if (!lane) byKey.set(key, (lane = new BudgetLane(this, scope, key)));
    lane.enter(waiter);
  }

  /** The lane of a key, while it has work (tests and diagnostics). */
  lane(scope: string, key: string): BudgetLane | undefined {
    return this.lanes.get(scope)?.get(key);
  }

  /** Waiters started and not yet released, over every lane. */
  get active(): number {
    return this.total;
  }

  /** Resolves once no waiter is started (a queued one is started as soon as a slot frees). */
  idle(): Promise<void> {
    if (this.total === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** @internal lanes count their starts here. */
  started(): void {
    this.total++;
  }

  /** @internal lanes count their releases here. */
  released(): void {
    this.total--;
    if (this.total > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** @internal an idle lane is dropped, so keys no longer used take no memory. */
  forget(lane: BudgetLane): void {
    const byKey = this.lanes.get(lane.scope);
    if (byKey?.get(lane.key) !== lane) return;
    byKey.delete(lane.key);
    if (byKey.size === 0) this.lanes.delete(lane.scope);
  }
}
