/**
 * Group commit: writes that arrive while a transaction is running are collected and committed
 * together in the next one. Under load one commit (and on PostgreSQL one WAL flush) serves many
 * requests; at rest a write waits for nothing but itself. Every caller's promise settles only
 * after the COMMIT that made its write durable.
 *
 * If any write of a batch fails, the whole batch is rolled back and each write is run again in a
 * transaction of its own (the batcher's `retry-each`), so one bad write never takes others down
 * (failures are rare: the optimistic path saves a savepoint round trip per write). One batch runs
 * at a time per process, so batches of one process never wait on each other's row locks.
 */
import type { Kysely } from 'kysely';
import { Batcher } from '../kernel/batcher.js';
import type { Database } from './schema.js';
import { runDirectly, type DirectRunner } from './sqlite/direct-runner.js';

/** Values a write may share with the other writes of its batch (same transaction), e.g. a row read by all. */
export type BatchMemo = Map<string, unknown>;

export class GroupCommitter<I, O> {
  private readonly batcher: Batcher<I, O>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly write: (trx: Kysely<Database>, input: I, memo: BatchMemo) => Promise<O>,
    private readonly options: {
      maxBatch?: number;
      /** Runs after a batch committed, before its callers resume, with the batch's memo. */
      afterCommit?: (memo: BatchMemo) => void;
      /** SQLite: the batch's precompiled statements go straight to the driver. */
      direct?: DirectRunner;
    } = {},
  ) {
    this.batcher = new Batcher<I, O>({ run: (inputs) => this.commit(inputs), maxBatch: options.maxBatch ?? 256, failure: 'retry-each' });
  }

  submit(input: I): Promise<O> {
    return this.batcher.submit(input);
  }

  /** Writes `inputs` in one transaction; answers their values once it committed. */
  private async commit(inputs: I[]): Promise<O[]> {
    const memo: BatchMemo = new Map();
    const values = await this.db.transaction().execute(async (trx) => {
      if (this.options.direct) runDirectly(trx, this.options.direct);
      const out: O[] = [];
      for (const input of inputs) out.push(await this.write(trx, input, memo));
      return out;
    });
    this.options.afterCommit?.(memo);
    return values;
  }
}
