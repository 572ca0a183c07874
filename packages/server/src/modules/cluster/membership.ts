/**
 * This instance's membership of the cluster: it writes its heartbeat every `heartbeatMs`, and
 * every `watchMs` reads the others' and takes over the leased jobs of each one whose beat stopped
 * for `deadAfterMs` (Liveness). The take-over is one transaction that only one observer wins (the
 * row is removed only if its beat is still the one judged dead); the jobs are ready again at once
 * and their queues woken on every instance. Leases still expire as before, should no instance be
 * watching.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.js';
import { Liveness } from './liveness.js';
import type { ClusterMetrics } from './metrics.js';
import type { InstanceRecord, InstancesRepository, InstanceView } from './ports.js';

export interface MembershipOptions {
  /** This instance's id: the lease owner of the jobs it claims. */
  id: string;
  repo: InstancesRepository;
  /** Wall clock: the heartbeat's time as shown (`heartbeatAt`, `startedAt`). */
  clock: Clock;
  /**
   * What the liveness rule times beats on (default: `clock`). The composition passes a monotonic
   * clock, so a step of the wall clock (NTP, or a test moving its fake clock) never makes a live
   * instance look silent.
   */
  elapsed?: Clock;
  /** Jobs running in this instance now. */
  inFlight: () => number;
  /** Wakes the workers of a queue on every instance (the job queue's notify). */
  wake: (queue: string) => void;
  metrics: ClusterMetrics;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Heartbeat period (default 1 s). */
  heartbeatMs?: number;
  /** Beat unchanged this long, by the observer's clock: dead (default 3 s). */
  deadAfterMs?: number;
  /** How often the others' heartbeats are read (default 250 ms). */
  watchMs?: number;
}

export class Membership {
  readonly id: string;
  private readonly liveness: Liveness;
  private readonly startedAt: number;
  private beats = 0;
  private timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();
  private failing = false;
  private readonly takeOverListeners: Array<(queues: readonly string[]) => void> = [];

  constructor(private readonly opts: MembershipOptions) {
    this.id = opts.id;
    this.startedAt = opts.clock.now();
    this.liveness = new Liveness(opts.elapsed ?? opts.clock, opts.deadAfterMs ?? 3_000);
  }

  /**
   * Called with the queues of the jobs this instance released, before they are woken: a module
   * whose workers start on demand (a callback rule's queue) starts them here, so this instance
   * can run what it released even if it never worked that queue before.
   */
  onTakeOver(listener: (queues: readonly string[]) => void): void {
    this.takeOverListeners.push(listener);
  }

  start(): void {
    if (this.timers.length > 0) return;
    this.timers = [this.every(this.opts.heartbeatMs ?? 1_000, () => this.beatOnce()), this.every(this.opts.watchMs ?? 250, () => this.watchOnce())];
    this.run(() => this.beatOnce());
  }

  /** Stops beating and removes this instance's row: nothing of it is left to take over. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await Promise.allSettled([...this.running]);
    await this.opts.repo.remove(this.id).catch(() => undefined);
  }

  /** Writes one heartbeat. */
  async beatOnce(): Promise<void> {
    const { clock, repo } = this.opts;
    this.beats++;
    const record: InstanceRecord = { id: this.id, beat: this.beats, heartbeatAt: clock.now(), startedAt: this.startedAt, inFlight: this.opts.inFlight() };
    const existed = await repo.beat(record);
    if (!existed && this.beats > 1) {
      // Our heartbeat stopped long enough for another instance to release our jobs: they may run
      // twice (ours finishing here, theirs there). Each job's completion is conditional on its lease.
      this.opts.metrics.declaredDead();
      this.opts.logger?.warn({ instance: this.id }, 'this instance was declared dead by another; its leased jobs were released');
    }
  }

  /** Reads the heartbeats once and takes over the jobs of the instances found dead. */
  async watchOnce(): Promise<void> {
    const rows = await this.opts.repo.list();
    const dead = this.liveness.observe(rows, this.id);
    const live = rows.filter((r) => r.id === this.id || this.liveness.alive(r.id)).length;
    for (const { id, beat } of dead) {
      const result = await this.opts.repo.takeOver(id, beat);
      this.liveness.forget(id);
      if (!result.taken) continue;
      this.opts.metrics.tookOver(result.jobs);
      this.opts.logger?.info({ instance: id, jobs: result.jobs }, 'took over the leased jobs of a dead instance');
      for (const listener of this.takeOverListeners) listener(result.queues);
      for (const queue of result.queues) this.opts.wake(queue);
    }
    this.opts.metrics.liveInstances(Math.max(1, live));
  }

  /**
   * Whether the instance `id` lives: this one; one whose beat this one watches moving; or one not
   * watched yet whose row is there with a beat younger than the dead-after time by this clock.
   */
  async isAlive(id: string): Promise<boolean> {
    if (id === this.id) return true;
    const watched = this.liveness.known(id);
    if (watched !== undefined) return watched;
    const row = (await this.opts.repo.list()).find((r) => r.id === id);
    return row !== undefined && this.opts.clock.now() - row.heartbeatAt < (this.opts.deadAfterMs ?? 3_000);
  }

  /** The live instances, this one first. */
  async view(): Promise<InstanceView[]> {
    const rows = await this.opts.repo.list();
    const now = this.opts.clock.now();
    return rows
      .filter((r) => r.id === this.id || this.liveness.alive(r.id))
      .map((r) => {
        const self = r.id === this.id;
        return {
          id: r.id,
          self,
          inFlight: self ? this.opts.inFlight() : r.inFlight,
          lastHeartbeat: new Date(r.heartbeatAt).toISOString(),
          heartbeatAgeMs: self ? Math.max(0, now - r.heartbeatAt) : this.liveness.ageMs(r.id),
          startedAt: new Date(r.startedAt).toISOString(),
        };
      })
      .sort((a, b) => Number(b.self) - Number(a.self) || a.id.localeCompare(b.id));
  }

  private every(ms: number, task: () => Promise<void>): NodeJS.Timeout {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.run(task).finally(() => (busy = false));
    }, ms);
    timer.unref();
    return timer;
  }

  private run(task: () => Promise<void>): Promise<void> {
    const run = task()
      .then(() => {
        this.failing = false;
      })
      .catch((error: unknown) => {
        // Once per outage, not every 250 ms: /readyz reports the storage itself.
        if (!this.failing) this.opts.logger?.warn({ err: error }, 'cluster heartbeat failed');
        this.failing = true;
      })
      .finally(() => this.running.delete(run));
    this.running.add(run);
    return run;
  }
}
