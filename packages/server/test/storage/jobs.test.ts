import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job, JobResult } from '../../src/modules/jobs/ports.js';
import { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import type { Storage } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestStorage } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

describe.each(ENGINES)('durable job queue on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let clock: FakeClock;
  let queue: SqlJobQueue;

  beforeEach(async () => {
    clock = new FakeClock();
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    queue = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock, pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await queue.stop();
    await cleanup();
  });

  it('commits a job with the transaction that enqueued it, and not on rollback', async () => {
    await storage.db
      .transaction()
      .execute(async (trx) => {
        await queue.enqueue(trx, { queue: 'q', payload: { n: 1 } });
        throw new Error('rollback');
      })
      .catch(() => undefined);
    expect(await queue.depth('q')).toBe(0);
    await storage.db.transaction().execute((trx) => queue.enqueue(trx, { queue: 'q', payload: { n: 2 } }));
    expect(await queue.depth('q')).toBe(1);
  });

  it('runs each job once and deletes it when done', async () => {
    const seen: number[] = [];
    queue.work<{ n: number }>('q', async (job) => {
      seen.push(job.payload.n);
      return { status: 'done' };
    }, { concurrency: 4 });
    queue.start();
    await queue.enqueue(storage.db, Array.from({ length: 50 }, (_, n) => ({ queue: 'q', payload: { n } })));
    queue.notify('q');
    await queue.idle('q');
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(await queue.depth('q')).toBe(0);
  });

  it('retries at the time the handler chose, counting attempts', async () => {
    const attempts: number[] = [];
    queue.work('q', async (job): Promise<JobResult> => {
      attempts.push(job.attempts);
      return job.attempts < 2 ? { status: 'retry', runAt: clock.now() + 5_000, error: 'receiver down' } : { status: 'done' };
    }, { concurrency: 1 });
    queue.start();
    await queue.enqueue(storage.db, { queue: 'q', payload: {} });
    queue.notify('q');
    await queue.idle('q');
    expect(attempts).toEqual([0]);
    expect(await queue.depth('q')).toBe(1); // waiting for its retry time, which has not come
    clock.advance(5_000);
    queue.notifyAll();
    await queue.idle('q');
    expect(attempts).toEqual([0, 1]);
    clock.advance(5_000);
    queue.notifyAll();
    await queue.idle('q');
    expect(attempts).toEqual([0, 1, 2]);
    expect(await queue.depth('q')).toBe(0);
  });

  it('runs jobs with the same ordering key one at a time, in order, even across a retry', async () => {
    const order: string[] = [];
    let failFirst = true;
    queue.work<{ name: string }>('q', async (job): Promise<JobResult> => {
      if (job.payload.name === 'a1' && failFirst) {
        failFirst = false;
        order.push('a1-failed');
        return { status: 'retry', runAt: clock.now() + 1_000 };
      }
      order.push(job.payload.name);
      return { status: 'done' };
    }, { concurrency: 8 });
    await queue.enqueue(storage.db, [
      { queue: 'q', payload: { name: 'a1' }, orderingKey: 'a' },
      { queue: 'q', payload: { name: 'a2' }, orderingKey: 'a' },
      { queue: 'q', payload: { name: 'b1' }, orderingKey: 'b' },
    ]);
    queue.start();
    await queue.idle('q');
    // a2 must not overtake a1 while a1 waits for its retry; b is independent.
    expect(order).toEqual(['a1-failed', 'b1']);
    clock.advance(1_000);
    queue.notifyAll();
    await queue.idle('q');
    expect(order).toEqual(['a1-failed', 'b1', 'a1', 'a2']);
  });

  // On SQLite a statement runs within the turn, so the whole hand-over does; on PostgreSQL each
  // statement is a round trip of its own.
  it.runIf(engine === 'sqlite')('starts the next job of an ordering key in the turn its predecessor finished', async () => {
    let laterTurn = false;
    const seen: string[] = [];
    queue.work<{ name: string }>('q', async (job): Promise<JobResult> => {
      if (job.payload.name === 'first') setImmediate(() => (laterTurn = true));
      else seen.push(laterTurn ? 'a later turn' : 'the same turn');
      return { status: 'done' };
    }, { concurrency: 8 });
    await queue.enqueue(storage.db, [
      { queue: 'q', payload: { name: 'first' }, orderingKey: 'k' },
      { queue: 'q', payload: { name: 'next' }, orderingKey: 'k' },
    ]);
    queue.start();
    await queue.idle('q');
    // Batched with the turn's other deletes and woken on the next turn, it started a turn later.
    expect(seen).toEqual(['the same turn']);
  });

  it('reclaims a job whose lease expired (the worker that held it died)', async () => {
    await queue.enqueue(storage.db, { queue: 'q', payload: {} });
    // A worker claims it and "dies": simulate by leasing the row without completing it.
    await storage.db.updateTable('jobs').set({ locked_until: clock.now() + 60_000, locked_by: 'dead-worker' }).execute();
    const runs: Job[] = [];
    queue.work('q', async (job) => {
      runs.push(job);
      return { status: 'done' };
    }, { concurrency: 1 });
    queue.start();
    await queue.idle('q');
    expect(runs).toHaveLength(0);
    clock.advance(60_001);
    queue.notifyAll();
    await queue.idle('q');
    expect(runs).toHaveLength(1);
  });

  it('runs a job again after its process died: at once on SQLite (leases in memory), after the lease on PostgreSQL', async () => {
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    let firstRuns = 0;
    queue.work('q', async () => {
      firstRuns++;
      await hung;
      return { status: 'done' };
    }, { concurrency: 1, leaseMs: 30_000 });
    queue.start();
    await queue.enqueue(storage.db, { queue: 'q', payload: {} });
    queue.notify('q');
    expect(await waitFor(() => firstRuns, (n) => n > 0, 2_000)).toBe(1);
    const row = await storage.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
    // SQLite: one process owns the database, the lease is not written to the row.
    expect(row.locked_by === null).toBe(storage.capabilities.engine === 'sqlite');

    // The first process "dies" holding the job; the next one starts on the same database.
    const next = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock, pollIntervalMs: 20 });
    let nextRuns = 0;
    next.work('q', async () => {
      nextRuns++;
      return { status: 'done' };
    }, { concurrency: 1 });
    next.start();
    try {
      if (storage.capabilities.engine === 'postgres') {
        await new Promise((r) => setTimeout(r, 100));
        expect(nextRuns).toBe(0);
        clock.advance(30_001);
        next.notifyAll();
      }
      expect(await waitFor(() => nextRuns, (n) => n > 0, 2_000)).toBe(1);
    } finally {
      await next.stop();
      release();
    }
  });

  it('retries a job whose handler threw, with back-off', async () => {
    let calls = 0;
    queue.work('q', async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return { status: 'done' };
    }, { concurrency: 1 });
    queue.start();
    await queue.enqueue(storage.db, { queue: 'q', payload: {} });
    queue.notify('q');
    await queue.idle('q');
    expect(calls).toBe(1);
    const row = await storage.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
    expect(row.last_error).toBe('boom');
    expect(row.attempts).toBe(1);
    clock.advance(1_000);
    queue.notifyAll();
    await queue.idle('q');
    expect(calls).toBe(2);
  });

  it('keeps unclaimed jobs for the next start after stop', async () => {
    await queue.enqueue(storage.db, { queue: 'q', payload: {} });
    await queue.stop();
    const next = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock, pollIntervalMs: 20 });
    let ran = 0;
    next.work('q', async () => {
      ran++;
      return { status: 'done' };
    }, { concurrency: 1 });
    next.start();
    await next.idle('q');
    await next.stop();
    expect(ran).toBe(1);
  });
});
