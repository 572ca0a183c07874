import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ObserveRequest } from '../pipeline.js';

/** One registry per app instance, so several apps in one process (tests) never collide. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  return registry;
}

/** The pipeline's metrics step: requests and latency by method, route pattern and status, in `registry`. */
export function httpMetrics(registry: Registry): ObserveRequest {
  const requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (method, route, status, seconds) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    latency.observe(labels, seconds);
  };
}
