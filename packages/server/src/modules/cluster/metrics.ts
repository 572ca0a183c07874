import { Counter, Gauge, type Registry } from 'prom-client';

export interface ClusterMetrics {
  /** This instance took over a dead instance's leases. */
  tookOver(jobs: number): void;
  /** This instance found its row gone: another declared it dead and released its jobs. */
  declaredDead(): void;
  liveInstances(n: number): void;
}

export function promClusterMetrics(registry: Registry): ClusterMetrics {
  const takeovers = new Counter({
    name: 'parley_cluster_takeovers_total',
    help: 'Dead instances whose leased jobs this instance released',
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'parley_cluster_jobs_taken_over_total',
    help: 'Leased jobs of dead instances released (made ready again) by this instance',
    registers: [registry],
  });
  const dead = new Counter({
    name: 'parley_cluster_declared_dead_total',
    help: 'Heartbeats that found this instance declared dead by another (its jobs were released)',
    registers: [registry],
  });
  const live = new Gauge({
    name: 'parley_cluster_live_instances',
    help: 'Instances this one believes alive, itself included',
    registers: [registry],
  });
  return {
    tookOver(n) {
      takeovers.inc();
      jobs.inc(n);
    },
    declaredDead: () => dead.inc(),
    liveInstances: (n) => live.set(n),
  };
}
