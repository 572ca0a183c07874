/**
 * Take-over of a dead instance's leased jobs, on real storage with the injected clock: the
 * heartbeat rows, the conditional take-over, and (where leases are written on the rows) two job
 * queues on one database where one instance dies holding jobs and the other runs exactly the jobs
 * that were in flight, with their payload (and so their callId) unchanged, long before the lease.
 */
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Membership } from '../../src/modules/cluster/membership.js';
import { promClusterMetrics } from '../../src/modules/cluster/metrics.js';
import type { InstancesRepository } from '../../src/modules/cluster/ports.js';
import type { Job } from '../../src/modules/jobs/ports.js';
import type { Storage } from '../../src/storage/index.js';
import { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import { kyselyInstancesRepository } from '../../src/storage/repositories/instances.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestStorage } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

async function counter(registry: Registry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values.reduce((sum, v) => sum + v.value, 0);
}

describe.each(ENGINES)('take-over of a dead instance on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let clock: FakeClock;
  let repo: InstancesRepository;

  beforeEach(async () => {
    clock = new FakeClock();
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    repo = kyselyInstancesRepository(storage.db);
  });
  afterEach(async () => cleanup());

  const leased = (owner: string, n: number) =>
    storage.db
      .insertInto('jobs')
      .values(Array.from({ length: n }, (_, i) => ({ queue: `q${i % 2}`, ordering_key: null, payload: '{}', run_at: 0, locked_until: clock.now() + 60_000, locked_by: owner, last_error: null, created_at: 0 })))
      .execute();

  it('records heartbeats, and releases only the dead instance’s leases, once, while its beat is the one judged dead', async () => {
    expect(await repo.beat({ id: 'a', beat: 1, heartbeatAt: 10, startedAt: 5, inFlight: 3 })).toBe(false);
    expect(await repo.beat({ id: 'a', beat: 2, heartbeatAt: 20, startedAt: 5, inFlight: 4 })).toBe(true);
    await repo.beat({ id: 'b', beat: 1, heartbeatAt: 20, startedAt: 5, inFlight: 0 });
    expect(await repo.list()).toEqual([
      { id: 'a', beat: 2, heartbeatAt: 20, startedAt: 5, inFlight: 4 },
      { id: 'b', beat: 1, heartbeatAt: 20, startedAt: 5, inFlight: 0 },
    ]);
    await leased('a', 3);
    await leased('b', 2);
    // The beat moved since it was judged: nothing is taken.
    expect(await repo.takeOver('a', 1)).toEqual({ taken: false, jobs: 0, queues: [] });
    const taken = await repo.takeOver('a', 2);
    expect(taken).toMatchObject({ taken: true, jobs: 3 });
    expect(taken.queues.sort()).toEqual(['q0', 'q1']);
    // A second observer finds the work done.
    expect(await repo.takeOver('a', 2)).toEqual({ taken: false, jobs: 0, queues: [] });
    const rows = await storage.db.selectFrom('jobs').select(['locked_by', 'locked_until', 'attempts']).execute();
    expect(rows.filter((r) => r.locked_by === null && r.locked_until === null)).toHaveLength(3);
    expect(rows.filter((r) => r.locked_by === 'b')).toHaveLength(2);
    expect(rows.every((r) => Number(r.attempts) === 0)).toBe(true);
    expect((await repo.list()).map((r) => r.id)).toEqual(['b']);
    // The instance comes back (it was only slow): its next beat says its row was gone.
    expect(await repo.beat({ id: 'a', beat: 3, heartbeatAt: 30, startedAt: 5, inFlight: 0 })).toBe(false);
  });

  it('takes over through the heartbeat rule: a slow instance keeps its jobs, a silent one loses them after the timeout', async () => {
    await leased('slow', 2);
    const registry = new Registry();
    const woken: string[] = [];
    const options = { repo, clock, inFlight: () => 0, metrics: promClusterMetrics(registry), deadAfterMs: 3_000 };
    const observer = new Membership({ ...options, id: 'observer', wake: (q) => woken.push(q) });
    const slow = new Membership({ ...options, id: 'slow', inFlight: () => 2, metrics: promClusterMetrics(new Registry()), wake: () => undefined });
    const adopted: string[] = [];
    observer.onTakeOver((queues) => adopted.push(...queues.map((q) => `${q} before ${woken.length} wakes`)));
    await slow.beatOnce();
    await observer.beatOnce();
    // A minute of beats: alive, however long its jobs take.
    for (let s = 0; s < 60; s++) {
      await observer.watchOnce();
      clock.advance(1_000);
      await slow.beatOnce();
    }
    await observer.watchOnce();
    expect(await storage.db.selectFrom('jobs').where('locked_by', '=', 'slow').select('id').execute()).toHaveLength(2);
    expect((await observer.view()).map((v) => [v.id, v.self, v.inFlight])).toEqual([
      ['observer', true, 0],
      ['slow', false, 2],
    ]);
    // Silent for 2.75 s: still alive; at 3 s: taken over.
    clock.advance(2_750);
    await observer.watchOnce();
    expect(await counter(registry, 'parley_cluster_takeovers_total')).toBe(0);
    clock.advance(250);
    await observer.watchOnce();
    expect(await storage.db.selectFrom('jobs').where('locked_by', 'is', null).select('id').execute()).toHaveLength(2);
    expect(await counter(registry, 'parley_cluster_takeovers_total')).toBe(1);
    expect(await counter(registry, 'parley_cluster_jobs_taken_over_total')).toBe(2);
    expect(woken.sort()).toEqual(['q0', 'q1']);
    // The listeners (workers started on demand) hear of the queues before they are woken.
    expect(adopted.sort()).toEqual(['q0 before 0 wakes', 'q1 before 0 wakes']);
    expect((await observer.view()).map((v) => v.id)).toEqual(['observer']);
  });

  it.runIf(engine === 'postgres')('runs again only the jobs the dead instance had in flight, with the same payload, long before their lease', async () => {
    const a = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock, pollIntervalMs: 20, workerId: 'a' });
    const b = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock, pollIntervalMs: 20, workerId: 'b' });
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const ranOnA: Array<Job<{ callId: string }>> = [];
    a.work<{ callId: string }>('q', async (job) => {
      ranOnA.push(job);
      // The first four are answered; the next two hang: they are in flight when A dies.
      if (ranOnA.length > 4) await hung;
      return { status: 'done' };
    }, { concurrency: 2, leaseMs: 60_000 });
    a.start();
    await a.enqueue(storage.db, Array.from({ length: 6 }, (_, i) => ({ queue: 'q', payload: { callId: `call-${i}` } })));
    a.notify('q');
    await waitFor(() => ranOnA.length, (n) => n === 6, 5_000);
    expect(a.inFlight()).toBe(2);
    const metrics = { repo, clock, metrics: promClusterMetrics(new Registry()), deadAfterMs: 3_000 };
    const onA = new Membership({ ...metrics, id: 'a', inFlight: () => a.inFlight(), wake: () => undefined });
    const onB = new Membership({ ...metrics, id: 'b', inFlight: () => b.inFlight(), wake: (q) => b.notify(q) });
    await onA.beatOnce();
    const ranOnB: Array<Job<{ callId: string }>> = [];
    b.work<{ callId: string }>('q', async (job) => {
      ranOnB.push(job);
      return { status: 'done' };
    }, { concurrency: 8 });
    b.start();
    try {
      await onB.watchOnce();
      // A dies (no more beats, its workers hang): 3 s later B takes over, the lease has 57 s left.
      clock.advance(3_000);
      await onB.watchOnce();
      await waitFor(() => ranOnB.length, (n) => n === 2, 5_000);
      await b.idle('q');
      expect(ranOnB.map((j) => j.payload.callId).sort()).toEqual(ranOnA.slice(4).map((j) => j.payload.callId).sort());
      expect(ranOnB.every((j) => j.attempts === 0)).toBe(true);
      expect(await b.depth('q')).toBe(0);
      // A was only hung: its late completions find the leases gone and change nothing.
      release();
      await a.stop();
      expect(await b.depth('q')).toBe(0);
    } finally {
      release();
      await a.stop();
      await b.stop();
    }
  });
});
