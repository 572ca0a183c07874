/**
 * JobQueue on the `jobs` table of either engine. On engines with several writers (PostgreSQL)
 * workers claim due jobs with a lease in one UPDATE ... RETURNING, the candidate rows locked with
 * SKIP LOCKED, so several instances share the work and a dead instance's jobs come back when its
 * lease expires. On a single-writer engine (SQLite: one process owns the file) the leases live in
 * this process's memory instead: a claim is a plain SELECT, not a rewrite of every claimed row,
 * and a crash drops the leases with the process, so every job is claimable again on restart.
 * An in-process wake-up makes a freshly enqueued job run at once; a short poll covers jobs that
 * become due later and other processes' jobs.
 */
import { EventEmitter } from 'node:events';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Batcher } from '../../kernel/batcher.js';
import type { Clock } from '../../kernel/clock.js';
import { randomHex } from '../../kernel/ids.js';
import type { PubSub } from '../../modules/coordination/ports.js';
import type { Job, JobHandler, JobQueue, JobResult, NewJob, OwnedJob, TransactionJobs, WorkerOptions } from '../../modules/jobs/ports.js';
import { limitParam } from '../precompiled.js';
import { CLAIMED_COLUMNS, jobStatements, type ClaimedRow } from './job-statements.js';
import type { Database } from '../schema.js';
import type { Capabilities } from '../types.js';

const DEFAULT_LEASE_MS = 60_000;

/** Back-off after a handler threw (a bug or an unreachable database), by attempt. */
const CRASH_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

export interface SqlJobQueueOptions {
  db: Kysely<Database>;
  capabilities: Capabilities;
  clock: Clock;
  logger?: Pick<Logger, 'error' | 'warn'>;
  /** Real-time poll interval when a queue looks empty. */
  pollIntervalMs?: number;
  /** Cross-instance wake-ups (Redis); without it other instances find new jobs by polling. */
  pubsub?: PubSub;
  /** The lease owner written on claimed rows: the instance id its heartbeat announces (modules/cluster). */
  workerId?: string;
}

const WAKE_TOPIC = 'jobs:wake';

/** An owned job's `run`, which its batch's every writer calls: only the first call counts. */
function once(run: () => void): OwnedJob {
  let ran = false;
  return {
    run: () => {
      if (ran) return;
      ran = true;
      run();
    },
  };
}
/** Rows per INSERT: 8 parameters each, far below SQLite's and PostgreSQL's limits. */
const ENQUEUE_CHUNK = 500;

interface Registration {
  queue: string;
  handler: JobHandler<unknown>;
  options: Required<WorkerOptions>;
  running: number;
  /** Ids of this queue's jobs leased in memory (single-writer engines), until done or released. */
  leased: Set<number>;
  /** A claim is in flight: its jobs may be leased in the database but not yet counted as running. */
  claiming: boolean;
  wakeRequested: boolean;
  wakeScheduled: boolean;
  loop?: Promise<void>;
  timer?: NodeJS.Timeout;
  wake?: () => void;
}

/** What storage uses of the queue beyond the JobQueue port: the jobs of a transaction. */
export interface JobQueueAdapter {
  inTransaction(trx: Kysely<Database>): TransactionJobs;
}

export class SqlJobQueue implements JobQueue, JobQueueAdapter {
  private readonly registrations = new Map<string, Registration>();
  private readonly events = new EventEmitter();
  private readonly workerId: string;
  private readonly tasks = new Set<Promise<void>>();
  private started = false;
  private stopped = false;
  /** Leases in memory instead of in the rows: only when one process owns the database. */
  private readonly memoryLeases: boolean;
  private readonly q = jobStatements();
  /**
   * Finished jobs are deleted in one statement per turn of the event loop rather than one each:
   * under load this halves the statements per job. A caller resumes after its delete; the
   * deletes of successive turns do not wait for each other.
   */
  private readonly deletes = new Batcher<number>({ run: (ids) => this.deleteIds(ids), concurrency: Infinity });

  constructor(private readonly opts: SqlJobQueueOptions) {
    this.events.setMaxListeners(0);
    this.memoryLeases = !opts.capabilities.multiWriter;
    this.workerId = opts.workerId ?? `w-${randomHex(6)}`;
  }

  /** Jobs running now (each has its task in `tasks` from start to end). */
  inFlight(): number {
    return this.tasks.size;
  }

  /** The jobs of the transaction `trx` (the unit of work's `jobs`). */
  inTransaction(trx: Kysely<Database>): TransactionJobs {
    return { enqueue: (jobs) => this.enqueue(trx, jobs), enqueueOwned: (job) => this.enqueueOwned(trx, job) };
  }

  /** Writes jobs with `db`, the caller's transaction. */
  async enqueue(db: Kysely<Database>, jobs: NewJob | NewJob[]): Promise<void> {
    const list = Array.isArray(jobs) ? jobs : [jobs];
    if (list.length === 0) return;
    const now = this.opts.clock.now();
    // In chunks: a fan-out batch can hold thousands of jobs, past the engines' parameter limits.
    for (let i = 0; i < list.length; i += ENQUEUE_CHUNK) {
      const chunk = list.slice(i, i + ENQUEUE_CHUNK);
      const params: unknown[] = [];
      for (const job of chunk) params.push(job.queue, job.orderingKey ?? null, JSON.stringify(job.payload), job.runAt ?? now, null, null, null, now);
      await this.q.insert(db, chunk.length, params);
    }
  }

  /**
   * A job leased to this instance from the start: in the row (several writers), where other
   * instances' claims skip it until a take-over releases it; in memory (one writer) from `run` on.
   */
  private async enqueueOwned(db: Kysely<Database>, job: NewJob): Promise<OwnedJob> {
    const reg = this.registrations.get(job.queue);
    if (!reg || !this.started || this.stopped) {
      await this.enqueue(db, job);
      return once(() => this.notify(job.queue));
    }
    const now = this.opts.clock.now();
    const lease = this.memoryLeases ? [null, null] : [now + reg.options.leaseMs, this.workerId];
    const runAt = job.runAt ?? now;
    const id = await this.q.insertOne(db, [job.queue, job.orderingKey ?? null, JSON.stringify(job.payload), runAt, ...lease, null, now]);
    if (id === undefined) throw new Error('an owned job was not inserted');
    const owned: Job = { id, queue: job.queue, payload: job.payload, attempts: 0, orderingKey: job.orderingKey ?? null, runAt, createdAt: now };
    return once(() => this.runOwned(reg, owned));
  }

  /** Runs an owned job here, once (a claim of this process that found it first runs it instead). */
  private runOwned(reg: Registration, job: Job): void {
    if (this.stopped || reg.leased.has(job.id)) return;
    reg.leased.add(job.id);
    this.execute(reg, job);
  }

  notify(queue: string): void {
    this.opts.pubsub?.publish(WAKE_TOPIC, queue);
    this.wakeLocal(queue);
  }

  private wakeLocal(queue: string): void {
    const reg = this.registrations.get(queue);
    if (reg) this.wakeSoon(reg);
  }

  /**
   * Wakes the loop on the next turn rather than now: the wake-ups of one turn lead to one claim
   * (`now`: in this turn, for an ordering key's next job). Not the kernel batcher: nothing is
   * carried out per wake-up, it only sets a flag the loop reads.
   */
  private wakeSoon(reg: Registration, now = false): void {
    reg.wakeRequested = true;
    if (now) return void reg.wake?.();
    if (reg.wakeScheduled) return;
    reg.wakeScheduled = true;
    setImmediate(() => {
      reg.wakeScheduled = false;
      reg.wake?.();
    });
  }

  /** Wakes every queue, e.g. after a test moved the clock. */
  notifyAll(): void {
    for (const queue of this.registrations.keys()) this.wakeLocal(queue);
  }

  work<P>(queue: string, handler: JobHandler<P>, options: WorkerOptions): void {
    if (this.registrations.has(queue)) throw new Error(`queue ${queue} already has a worker`);
    const reg: Registration = {
      queue,
      handler: handler as JobHandler<unknown>,
      options: {
        concurrency: Math.max(1, options.concurrency),
        leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
        batchSize: Math.max(1, options.batchSize ?? options.concurrency),
      },
      running: 0,
      leased: new Set(),
      claiming: false,
      wakeRequested: true,
      wakeScheduled: false,
    };
    this.registrations.set(queue, reg);
    if (this.started && !this.stopped) reg.loop = this.runLoop(reg);
  }

  private unsubscribe?: () => void;

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.opts.pubsub?.subscribe(WAKE_TOPIC, (queue) => this.wakeLocal(queue)).then((off) => {
      if (this.stopped) off();
      else this.unsubscribe = off;
    });
    for (const reg of this.registrations.values()) reg.loop = this.runLoop(reg);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const reg of this.registrations.values()) reg.wake?.();
    await Promise.all([...this.registrations.values()].map((r) => r.loop));
    await Promise.allSettled([...this.tasks]);
  }

  async depth(queue?: string): Promise<number> {
    let q = this.opts.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n'));
    if (queue) q = q.where('queue', '=', queue);
    const row = await q.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async idle(queue?: string): Promise<void> {
    for (;;) {
      // A claim in flight counts as running: its jobs are leased (so not due) but not yet started.
      // Checked again after the count, since a claim may have begun while it ran.
      const regs = queue ? [this.registrations.get(queue)].filter((r): r is Registration => r !== undefined) : [...this.registrations.values()];
      const busy = () => this.tasks.size > 0 || regs.some((r) => r.running > 0 || r.claiming);
      if (!busy() && (await this.dueCount(queue)) === 0 && !busy()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Jobs a worker could claim now: due, not leased, not waiting behind their ordering key. */
  private async dueCount(queue?: string): Promise<number> {
    const now = this.opts.clock.now();
    const result = await sql<{ n: number | string }>`
      SELECT COUNT(*) AS n FROM jobs j
      WHERE ${queue === undefined ? sql`1 = 1` : sql`j.queue = ${queue}`} AND ${this.claimable(now)}`.execute(this.opts.db);
    return Number(result.rows[0]?.n ?? 0);
  }

  private claimable(now: number) {
    return sql`j.run_at <= ${now}
      AND (j.locked_until IS NULL OR j.locked_until < ${now})
      AND (j.ordering_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM jobs k WHERE k.ordering_key = j.ordering_key AND k.id < j.id))`;
  }

  private async runLoop(reg: Registration): Promise<void> {
    const pollMs = this.opts.pollIntervalMs ?? 250;
    while (!this.stopped) {
      const free = reg.options.concurrency - reg.running;
      let claimed: Job[] = [];
      if (free > 0) {
        reg.wakeRequested = false;
        reg.claiming = true;
        try {
          claimed = await this.claim(reg, Math.min(free, reg.options.batchSize));
        } catch (error) {
          this.opts.logger?.error({ err: error, queue: reg.queue }, 'claiming jobs failed');
        }
        for (const job of claimed) this.execute(reg, job);
        reg.claiming = false;
      }
      if (this.stopped) break;
      // Claim again at once when the batch was full and capacity remains; otherwise wait.
      if (claimed.length > 0 && claimed.length === free) continue;
      if (reg.wakeRequested && reg.running < reg.options.concurrency) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(reg.timer);
          reg.wake = undefined;
          resolve();
        };
        reg.wake = done;
        reg.timer = setTimeout(done, pollMs);
      });
    }
  }

  private async claim(reg: Registration, limit: number): Promise<Job[]> {
    const rows = this.memoryLeases ? await this.claimInMemory(reg, limit) : await this.claimInRows(reg, limit);
    return rows
      .map((row) => ({
        id: Number(row.id),
        queue: row.queue,
        payload: JSON.parse(row.payload) as unknown,
        attempts: Number(row.attempts),
        orderingKey: row.ordering_key,
        runAt: Number(row.run_at),
        createdAt: Number(row.created_at),
      }))
      .sort((a, b) => a.runAt - b.runAt || a.id - b.id);
  }

  /** Leases written to the rows: other instances skip them, and they expire if this one dies. */
  private async claimInRows(reg: Registration, limit: number): Promise<ClaimedRow[]> {
    const now = this.opts.clock.now();
    const leaseUntil = now + reg.options.leaseMs;
    const lock = this.opts.capabilities.skipLocked ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const result = await sql<ClaimedRow>`
      UPDATE jobs SET locked_until = ${leaseUntil}, locked_by = ${this.workerId}
      WHERE id IN (
        SELECT j.id FROM jobs j
        WHERE j.queue = ${reg.queue} AND ${this.claimable(now)}
        ORDER BY j.run_at, j.id
        LIMIT ${limitParam(limit)}
        ${lock}
      )
      RETURNING ${CLAIMED_COLUMNS}`.execute(this.opts.db);
    return result.rows;
  }

  /**
   * Leases held in memory: read the due rows but the ones this queue holds already (their ids
   * passed as one JSON array: one statement text whatever their number). SQLite only.
   */
  private async claimInMemory(reg: Registration, limit: number): Promise<ClaimedRow[]> {
    const now = this.opts.clock.now();
    const held = reg.leased.size === 0 ? sql`` : sql`AND j.id NOT IN (SELECT value FROM json_each(${JSON.stringify([...reg.leased])}))`;
    const result = await sql<ClaimedRow>`
      SELECT ${CLAIMED_COLUMNS} FROM jobs j
      WHERE j.queue = ${reg.queue} AND ${this.claimable(now)} ${held}
      ORDER BY j.run_at, j.id
      LIMIT ${limitParam(limit)}`.execute(this.opts.db);
    // An owned job may have started here while the read ran: it is not claimed twice.
    const fresh = result.rows.filter((row) => !reg.leased.has(Number(row.id)));
    for (const row of fresh) reg.leased.add(Number(row.id));
    return fresh;
  }

  private execute(reg: Registration, job: Job): void {
    reg.running++;
    const task = (async () => {
      let result: JobResult;
      try {
        result = await reg.handler(job);
      } catch (error) {
        this.opts.logger?.error({ err: error, queue: reg.queue, jobId: job.id }, 'job handler threw; will retry');
        const delay = CRASH_BACKOFF_MS[Math.min(job.attempts, CRASH_BACKOFF_MS.length - 1)] as number;
        result = { status: 'retry', runAt: this.opts.clock.now() + delay, error: (error as Error).message };
      }
      try {
        await this.complete(job, result);
      } catch (error) {
        // The lease will expire (or, in memory, is released below) and the job run again:
        // handlers are written to be idempotent.
        this.opts.logger?.error({ err: error, queue: reg.queue, jobId: job.id }, 'recording job result failed');
      }
    })().finally(() => {
      // After the row was deleted or rescheduled (or that failed): the next claim may see it.
      reg.leased.delete(job.id);
      reg.running--;
      this.tasks.delete(task);
      // Its key's next job may be due now: claimed in this turn. Otherwise refill in batches, not
      // a claim per finished job: once half a batch is free (new jobs wake it through notify()).
      if (job.orderingKey !== null) this.wakeSoon(reg, true);
      else if (reg.running === 0 || reg.options.concurrency - reg.running >= Math.max(1, Math.floor(reg.options.batchSize / 2))) this.wakeSoon(reg);
    });
    this.tasks.add(task);
  }

  private async complete(job: Job, result: JobResult): Promise<void> {
    if (result.status === 'retry') {
      let update = this.opts.db
        .updateTable('jobs')
        .set({
          run_at: result.runAt,
          attempts: job.attempts + 1,
          locked_until: null,
          locked_by: null,
          last_error: result.error?.slice(0, 1000) ?? null,
        })
        .where('id', '=', job.id);
      // A lease in the row: only while it is still ours (it may have expired and moved on).
      if (!this.memoryLeases) update = update.where('locked_by', '=', this.workerId);
      await update.execute();
      return;
    }
    // The next job of its ordering key waits for this row: deleted now, not with the turn's batch.
    if (job.orderingKey !== null) await this.deleteIds([job.id]);
    else await this.deletes.join(job.id);
  }

  private async deleteIds(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      if (this.memoryLeases) await this.q.delete(this.opts.db, chunk.length, chunk);
      else await this.q.deleteOwn(this.opts.db, chunk.length, [...chunk, this.workerId]);
    }
  }
}
