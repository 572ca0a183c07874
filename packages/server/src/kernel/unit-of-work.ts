/**
 * The unit of work: how the domain writes several things so that they commit together or not at
 * all. Storage carries it out on either engine (storage/unit-of-work.ts); the domain never holds a
 * database handle. It asks for a transaction and gets a transaction object `Tx`: that
 * transaction's typed repositories and its job enqueue, valid until the work returns.
 *
 *   run(work)            one transaction of its own
 *   groupCommit(write)   the items submitted while a transaction runs are written together by the
 *                        next one (one COMMIT, on PostgreSQL one WAL flush, for many callers)
 *
 * One failure rule and one conflict rule, whatever is written:
 * - a batch whose transaction fails is undone, and each of its items is written again alone, so one
 *   bad item never takes the others down;
 * - an item that meets a `Conflict` (a unique key another writer took meanwhile, a deadlock, a
 *   serialization failure) is written again alone, up to CONFLICT_ATTEMPTS times in all, with
 *   `attempt` counting up so the write can look again (it then finds the other writer's rows) or
 *   take fresh values; past that the Conflict reaches the caller.
 * A caller's promise settles only after the COMMIT that made its write durable.
 */

/** Attempts of one item that keeps meeting conflicts, the first included. */
export const CONFLICT_ATTEMPTS = 4;

/**
 * A write met another writer: a unique key it took first (`unique`), or a deadlock or
 * serialization failure between two transactions (`contention`). Storage raises it for whatever
 * the engine called it; the domain decides what it means (a duplicate name, a retry).
 */
export class Conflict extends Error {
  override name = 'Conflict';
  constructor(
    readonly kind: 'unique' | 'contention',
    options?: { cause?: unknown },
  ) {
    super(kind === 'unique' ? 'a unique key is already taken' : 'the transaction conflicted with another', options);
  }
}

export const isConflict = (error: unknown, kind?: Conflict['kind']): error is Conflict => error instanceof Conflict && (kind === undefined || error.kind === kind);

export interface GroupCommitOptions<I> {
  /** Most weight one transaction writes (default 256). */
  maxBatch?: number;
  /** An item's weight (default 1). */
  weight?: (item: I) => number;
  /**
   * Whether batches may run side by side where the engine has several writers (PostgreSQL: a few
   * at once; SQLite: always one). Default false: one batch at a time in this process, so batches
   * of one process never wait on each other's row locks.
   */
  parallel?: boolean;
}

/**
 * Writes a batch in the transaction `tx`: one value per item, in order. `attempt` is 1 for a batch,
 * and counts an item's lone attempts after a Conflict (2, 3, ...).
 */
export type GroupWrite<Tx, I, O> = (tx: Tx, items: readonly I[], attempt: number) => Promise<readonly O[]>;

export interface GroupWriter<I, O> {
  /** Settles with the item's value once the transaction that wrote it committed. */
  submit(item: I): Promise<O>;
}

export interface UnitOfWork<Tx> {
  /** Runs `work` in one transaction; its writes commit together, or none does. */
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** A group-committed writer of `write` (see the failure and conflict rules above). */
  groupCommit<I, O>(write: GroupWrite<Tx, I, O>, options?: GroupCommitOptions<I>): GroupWriter<I, O>;
}
