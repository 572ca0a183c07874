/**
 * buildApp(config, deps): everything Parley serves, registered on one Fastify instance that
 * never listens. main.ts listens; tests use inject(). The composition root: the steps live in
 * composition/ (http-server, repositories, modules, routes, lifecycle), this file runs them in order.
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config/index.js';
import { clientAddressOf, trustProxy } from './http/client-address.js';
import { createMetricsRegistry, httpMetrics } from './http/plugins/metrics.js';
import { HttpPipeline } from './http/pipeline.js';
import { systemClock } from './kernel/clock.js';
import { createFastify, type LaneSlot } from './composition/http-server.js';
import { registerLifecycle, schedulePeriodicTasks } from './composition/lifecycle.js';
import { buildModules } from './composition/modules.js';
import type { AppDeps } from './composition/parley.js';
import { registerSurfaces } from './composition/routes.js';
import { openStorage } from './storage/index.js';

export type { AppDeps, Parley } from './composition/parley.js';
export { createHttpServer } from './composition/http-server.js';

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const storage = deps.storage ?? (await openStorage(config, clock));
  const ownsStorage = deps.storage === undefined;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }) : undefined;
  redis?.on('error', () => undefined); // reported through /readyz, not as an unhandled event

  // The pipeline both transports run (http/pipeline.ts); the send-message lane is set once the
  // channel module exists (composition/routes.ts).
  const metrics = createMetricsRegistry();
  const trusted = trustProxy(config.trustProxy);
  const pipeline = new HttpPipeline(httpMetrics(metrics), clock, clientAddressOf(trusted));
  const lane: LaneSlot = {};
  const app = createFastify(config, deps, pipeline, lane, trusted);

  const modules = await buildModules({ config, deps, clock, storage, redis, metrics, log: app.log });
  const { presence: _presence, ...parley } = modules;
  app.decorate('parley', parley);
  schedulePeriodicTasks(modules);
  await registerSurfaces(app, pipeline, lane);
  registerLifecycle(app, modules, ownsStorage);
  return app;
}
