/**
 * The unit of work (kernel/unit-of-work.ts) on either engine. A transaction is a Kysely
 * transaction; the domain sees it only as the transaction object `Tx` that `open` builds over it
 * (the transaction's repositories and job enqueue, storage/repositories/transaction.ts), never the
 * handle. Engine errors of a conflict become the domain's `Conflict`.
 *
 * Group commit is the kernel batcher (kernel/batcher.ts) with its `retry-each` policy: a batch is
 * one transaction; when it fails each item runs alone, and an item alone that meets a Conflict runs
 * again (CONFLICT_ATTEMPTS in all). On an engine with direct statements (SQLite) every transaction
 * runs its precompiled statements straight on the driver (direct-statements.ts).
 */
import type { Kysely } from 'kysely';
import { Batcher } from '../kernel/batcher.js';
import { CONFLICT_ATTEMPTS, isConflict, type GroupCommitOptions, type GroupWrite, type GroupWriter, type UnitOfWork } from '../kernel/unit-of-work.js';
import { directRunnerOf, runDirectly } from './direct-statements.js';
import { asDomainError } from './errors.js';
import type { Database } from './schema.js';
import type { Capabilities } from './types.js';

/** Batches running at once for a `parallel` writer on an engine with several writers. */
const PARALLEL_BATCHES = 4;
const DEFAULT_MAX_BATCH = 256;

/** One transaction as storage holds it: the handle, and what runs once it committed. */
export interface TransactionContext {
  readonly trx: Kysely<Database>;
  /** Runs after COMMIT, before the callers resume (e.g. what a cache learnt in the transaction). */
  afterCommit(action: () => void): void;
}

export class KyselyUnitOfWork<Tx> implements UnitOfWork<Tx> {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Capabilities,
    /** Builds the transaction object over a transaction. */
    private readonly open: (ctx: TransactionContext) => Tx,
  ) {}

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const after: Array<() => void> = [];
    let value: T;
    try {
      value = await this.db.transaction().execute((trx) => {
        const direct = this.capabilities.directStatements ? directRunnerOf(this.db) : undefined;
        if (direct) runDirectly(trx, direct);
        return work(this.open({ trx, afterCommit: (action) => after.push(action) }));
      });
    } catch (error) {
      throw asDomainError(error);
    }
    for (const action of after) action();
    return value;
  }

  groupCommit<I, O>(write: GroupWrite<Tx, I, O>, options: GroupCommitOptions<I> = {}): GroupWriter<I, O> {
    const batcher = new Batcher<I, O>({
      run: (items) => (items.length === 1 ? this.alone(write, items) : this.run((tx) => write(tx, items, 1))),
      maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH,
      ...(options.weight ? { weight: options.weight } : {}),
      concurrency: options.parallel && this.capabilities.multiWriter ? PARALLEL_BATCHES : 1,
      failure: 'retry-each',
    });
    return { submit: (item) => batcher.submit(item) };
  }

  /** One item in a transaction of its own, again after a Conflict (CONFLICT_ATTEMPTS in all). */
  private async alone<I, O>(write: GroupWrite<Tx, I, O>, items: readonly I[]): Promise<readonly O[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run((tx) => write(tx, items, attempt));
      } catch (error) {
        if (!isConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
      }
    }
  }
}
