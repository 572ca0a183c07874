/**
 * The durable hand-off: work that must happen after a request (fan-out, reply pushes, callbacks)
 * is written as a job in the same transaction as the data that caused it, so a crash after the
 * 200 loses nothing. Workers claim due jobs with a lease, run a handler, and the handler's result
 * decides what happens next. The handler is the policy; the queue only carries it out.
 *
 * States of a job row:  ready --claim--> leased --done--> (deleted)
 *                                          |--retry(runAt)--> ready (attempts+1)
 *                                          |--discard--> (deleted; the owner recorded why)
 *                                          |--owner's heartbeat stopped (crash)--> ready again (modules/cluster)
 *                                          '--lease expires (crash, nobody watching)--> ready again
 * A leased row names its owner (`locked_by`, the instance id); a completion is written only while
 * the lease is still the owner's.
 */
export interface NewJob<P = unknown> {
  /** Queue name, e.g. `channel.push`, `im.fanout`, `callbacks.deliver`. */
  queue: string;
  /** JSON-serialisable payload. Keep it small: ids, not documents. */
  payload: P;
  /** Earliest run time, ms (default: now). */
  runAt?: number;
  /**
   * Jobs with the same ordering key run one at a time in id order (across queues): a job waits
   * while an earlier one with its key exists, even one that is waiting for a retry.
   */
  orderingKey?: string | null;
}

export interface Job<P = unknown> {
  id: number;
  queue: string;
  payload: P;
  /** Completed attempts before this one (0 on the first run). */
  attempts: number;
  orderingKey: string | null;
  runAt: number;
  createdAt: number;
}

export type JobResult =
  | { status: 'done' }
  | { status: 'retry'; runAt: number; error?: string }
  | { status: 'discard'; error?: string };

export type JobHandler<P = unknown> = (job: Job<P>) => Promise<JobResult>;

export interface WorkerOptions {
  /** Jobs of this queue running at once in this process. */
  concurrency: number;
  /** Lease length; must exceed the longest handler run (HTTP timeout included). Default 60 s. */
  leaseMs?: number;
  /** Jobs claimed per round trip. Default: concurrency. */
  batchSize?: number;
}

/**
 * The jobs of one transaction (the unit of work's `jobs`): written with its other rows, so they
 * commit with them or not at all.
 */
export interface TransactionJobs {
  /** Writes jobs; after the commit, `JobQueue.notify` wakes the workers without waiting for a poll. */
  enqueue(jobs: NewJob | NewJob[]): Promise<void>;
  /**
   * Writes a job this instance runs itself once the transaction committed (`OwnedJob.run`). No
   * other instance claims it while this one lives; if this one dies first, the job is released
   * with its other leases (modules/cluster) and runs elsewhere. Where this instance runs no worker
   * for the queue, it is an ordinary job.
   */
  enqueueOwned(job: NewJob): Promise<OwnedJob>;
}

export interface OwnedJob {
  /** After the commit: runs the job here, as a claim would (its result recorded the same way). */
  run(): void;
}

export interface JobQueue {
  /** Wakes the workers of `queue` (in-process; across processes when the engine can). */
  notify(queue: string): void;
  /** Registers the handler of a queue. Call before start(). */
  work<P>(queue: string, handler: JobHandler<P>, options: WorkerOptions): void;
  start(): void;
  /** Stops claiming, waits for running handlers, leaves unclaimed jobs for the next start. */
  stop(): Promise<void>;
  /** Jobs running in this process now: claimed, and their result not yet written. */
  inFlight(): number;
  /** Number of jobs stored for `queue` (any state). Tests and metrics. */
  depth(queue?: string): Promise<number>;
  /** Resolves when no job of `queue` is due or running (tests: wait on state, not on time). */
  idle(queue?: string): Promise<void>;
}
