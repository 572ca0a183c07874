/**
 * The one way Parley groups writes and sends: items that arrive while a batch is being gathered
 * are carried out together by one call of `run` (one transaction, one statement, one message
 * between threads), started on a later turn of the event loop.
 *
 * Policies, all parameters:
 * - when a batch starts: on the next turn (setImmediate) by default. Not sooner: a whole
 *   better-sqlite3 transaction runs in microtasks, so a batch started at once would run before
 *   the requests already read off other sockets get a turn, and every batch would hold one item.
 * - how big a batch is: at most `maxBatch` of weight (each item weighs 1, or `weight(item)`); a
 *   first item always fits, however heavy.
 * - how many batches run at once: `concurrency` (a new batch starts on the turn after one ends).
 * - what a failed batch means (`failure`): `'reject-all'`, every item of it failed with the
 *   batch's error; `'retry-each'`, each item is run again alone (in the same slot, one after
 *   the other), so one bad item never takes the others down.
 *
 * Three ways in: `submit` (a promise per item, settled with the item's own value), `join` (a
 * promise shared by the items joined before their batch was taken: nothing per item) and `push`
 * (fire and forget: nothing per item; a failure goes to `onError`).
 */

export type FailurePolicy = 'reject-all' | 'retry-each';

export interface BatcherOptions<I, O> {
  /**
   * Carries out one batch; answers one value per item, in order (or nothing when items have no
   * value). May answer synchronously: the items are then settled before `run`'s caller resumes.
   */
  run: (items: I[]) => PromiseLike<readonly O[] | void> | readonly O[] | void;
  /** Most weight a batch holds (default: no limit). */
  maxBatch?: number;
  /** An item's weight (default 1). */
  weight?: (item: I) => number;
  /** Batches running at once (default 1). */
  concurrency?: number;
  /** Default `'reject-all'`. */
  failure?: FailurePolicy;
  /** Starts a gathered batch later; default: the next turn of the event loop. */
  schedule?: (start: () => void) => void;
  /** Failures of pushed items, which have no promise to reject (default: thrown, uncaught). */
  onError?: (error: unknown) => void;
}

/** What settles an item: its own promise (submit), its group's (join), or nothing (push). */
interface Settler<O> {
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** The promise shared by the items joined during one gathering: settles when all have run. */
class Group<O> implements Settler<O> {
  left = 0;
  failed = false;
  readonly promise: Promise<void>;
  private done!: () => void;
  private fail!: (error: unknown) => void;
  constructor() {
    this.promise = new Promise<void>((resolve, reject) => {
      this.done = resolve;
      this.fail = reject;
    });
  }
  resolve(): void {
    if (--this.left === 0 && !this.failed) this.done();
  }
  reject(error: unknown): void {
    this.failed = true;
    this.fail(error);
  }
}

const nextTurn = (start: () => void): void => void setImmediate(start);
const isThenable = <T>(value: unknown): value is PromiseLike<T> => typeof (value as PromiseLike<T> | undefined)?.then === 'function';

export class Batcher<I, O = void> {
  private items: I[] = [];
  /** Parallel to `items`: how each one is settled (undefined: pushed). */
  private settlers: Array<Settler<O> | undefined> = [];
  private group: Group<O> | undefined;
  private active = 0;
  private scheduled = false;
  private readonly run: BatcherOptions<I, O>['run'];
  private readonly maxBatch: number;
  private readonly concurrency: number;
  private readonly schedule: (start: () => void) => void;
  private readonly startTurn = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly options: BatcherOptions<I, O>) {
    this.run = options.run;
    this.maxBatch = options.maxBatch ?? Infinity;
    this.concurrency = options.concurrency ?? 1;
    this.schedule = options.schedule ?? nextTurn;
  }

  /** Resolves with the item's value once its batch ran; rejects as the failure policy says. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => this.add(item, { resolve, reject }));
  }

  /** Adds `item` without a promise of its own: resolves when every item joined with it has run. */
  join(item: I): Promise<void> {
    const group = (this.group ??= new Group<O>());
    group.left++;
    this.add(item, group);
    return group.promise;
  }

  /** Adds `item`, fire and forget. */
  push(item: I): void {
    this.add(item, undefined);
  }

  /** Starts what is waiting now (as many batches as `concurrency` allows), without waiting for the turn. */
  flush(): void {
    this.group = undefined;
    while (this.active < this.concurrency && this.items.length > 0) this.start(this.take());
  }

  private add(item: I, settler: Settler<O> | undefined): void {
    this.items.push(item);
    this.settlers.push(settler);
    if (this.scheduled || this.active >= this.concurrency) return;
    this.scheduled = true;
    this.schedule(this.startTurn);
  }

  /** How many of the waiting items the next batch takes. */
  private size(): number {
    const { weight } = this.options;
    if (!weight) return Math.min(this.items.length, this.maxBatch);
    let n = 0;
    let total = 0;
    while (n < this.items.length) {
      total += weight(this.items[n] as I);
      if (n > 0 && total > this.maxBatch) break;
      n++;
    }
    return n;
  }

  private take(): [I[], Array<Settler<O> | undefined>] {
    const n = this.size();
    if (n === this.items.length) {
      const taken: [I[], Array<Settler<O> | undefined>] = [this.items, this.settlers];
      this.items = [];
      this.settlers = [];
      return taken;
    }
    return [this.items.splice(0, n), this.settlers.splice(0, n)];
  }

  private start([items, settlers]: [I[], Array<Settler<O> | undefined>]): void {
    this.active++;
    let out: ReturnType<BatcherOptions<I, O>['run']>;
    try {
      out = this.run(items);
    } catch (error) {
      this.failed(items, settlers, error);
      return;
    }
    if (isThenable<readonly O[] | void>(out)) {
      void Promise.resolve(out).then(
        (values) => this.succeeded(settlers, values),
        (error: unknown) => this.failed(items, settlers, error),
      );
    } else {
      this.succeeded(settlers, out);
    }
  }

  private succeeded(settlers: Array<Settler<O> | undefined>, values: readonly O[] | void): void {
    for (let i = 0; i < settlers.length; i++) settlers[i]?.resolve((values ? values[i] : undefined) as O);
    this.finished();
  }

  private failed(items: I[], settlers: Array<Settler<O> | undefined>, error: unknown): void {
    if (this.options.failure === 'retry-each' && items.length > 1) {
      void this.runEachAlone(items, settlers).finally(() => this.finished());
      return;
    }
    this.reject(settlers, error);
    this.finished();
  }

  private async runEachAlone(items: I[], settlers: Array<Settler<O> | undefined>): Promise<void> {
    for (let i = 0; i < items.length; i++) {
      const settler = settlers[i];
      try {
        const values = await this.run([items[i] as I]);
        settler?.resolve((values ? values[0] : undefined) as O);
      } catch (error) {
        this.reject([settler], error);
      }
    }
  }

  private reject(settlers: Array<Settler<O> | undefined>, error: unknown): void {
    let pushed = false;
    for (const settler of settlers) {
      if (settler) settler.reject(error);
      else pushed = true;
    }
    if (!pushed) return;
    if (this.options.onError) this.options.onError(error);
    else
      queueMicrotask(() => {
        throw error;
      });
  }

  /** A batch ended: its slot is free for what waits (on a later turn). */
  private finished(): void {
    this.active--;
    if (this.items.length === 0 || this.scheduled) return;
    this.scheduled = true;
    this.schedule(this.startTurn);
  }
}
