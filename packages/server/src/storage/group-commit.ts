/**
 * Group commit: writes that arrive while a transaction is running are collected and committed
 * together in the next one. Under load one commit (and on PostgreSQL one WAL flush) serves many
 * requests; at rest a write waits for nothing but itself. Every caller's promise settles only
 * after the COMMIT that made its write durable.
 *
 * If any write of a batch fails, the whole batch is rolled back and each write is run again in a
 * transaction of its own, so one bad write never takes others down (failures are rare: the
 * optimistic path saves a savepoint round trip per write). One batch runs at a time per process,
 * so batches of one process never wait on each other's row locks.
 */
import type { Kysely } from 'kysely';
import { runDirectly, type DirectRunner } from './precompiled.js';
import type { Database } from './schema.js';

interface Pending<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Values a write may share with the other writes of its batch (same transaction), e.g. a row read by all. */
export type BatchMemo = Map<string, unknown>;

export class GroupCommitter<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private running = false;

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
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        // With better-sqlite3 a whole transaction runs in microtasks, so nothing else would
        // get a turn: yield once so that requests already read off the sockets can join.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = this.queue.splice(0, this.options.maxBatch ?? 256);
        if (!(await this.runBatch(batch)) && batch.length > 1) {
          for (const item of batch) await this.runBatch([item]);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Commits the batch and settles its callers; false when it was rolled back (callers unsettled). */
  private async runBatch(batch: Array<Pending<I, O>>): Promise<boolean> {
    let values: O[];
    const memo: BatchMemo = new Map();
    try {
      values = await this.db.transaction().execute(async (trx) => {
        if (this.options.direct) runDirectly(trx, this.options.direct);
        const out: O[] = [];
        for (const item of batch) out.push(await this.write(trx, item.input, memo));
        return out;
      });
    } catch (error) {
      if (batch.length > 1) return false;
      (batch[0] as Pending<I, O>).reject(error);
      return true;
    }
    this.options.afterCommit?.(memo);
    batch.forEach((item, i) => item.resolve(values[i] as O));
    return true;
  }
}
