/**
 * Prometheus metrics of the pre-send callback: calls by outcome and failure reason, and their latency.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { PresendFailure } from './answer.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5];

/** `delivered`, `rewritten`, `rejected` (the app said no), `failed_allowed`, `failed_rejected` (a failure and the rule's choice). */
export type PresendOutcome = 'delivered' | 'rewritten' | 'rejected' | 'failed_allowed' | 'failed_rejected';

export interface PresendMetrics {
  call(outcome: PresendOutcome, reason: PresendFailure | undefined, latencyMs: number): void;
}

export const noPresendMetrics: PresendMetrics = { call: () => undefined };

export function promPresendMetrics(registry: Registry): PresendMetrics {
  const calls = new Counter({
    name: 'parley_presend_calls_total',
    help: 'Pre-send calls by outcome (delivered, rewritten, rejected, failed_allowed, failed_rejected) and failure reason (none when the call succeeded)',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'parley_presend_duration_seconds',
    help: 'Latency of one pre-send call, request to answer (or failure), by outcome',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return {
    call(outcome, reason, latencyMs) {
      calls.inc({ outcome, reason: reason ?? 'none' });
      latency.observe({ outcome }, latencyMs / 1000);
    },
  };
}
