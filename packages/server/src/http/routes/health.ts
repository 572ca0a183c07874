import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { InstanceView } from '../../modules/cluster/ports.js';
import type { Storage } from '../../storage/index.js';

export interface HealthOptions {
  storage: Storage;
  metrics: Registry;
  extraChecks?: Array<() => Promise<void>>;
  /** The live instances of the cluster (this one first), listed by /readyz. */
  instances?: () => Promise<InstanceView[]>;
}

/** Process health, readiness and Prometheus metrics. Unauthenticated, outside both surfaces' auth. */
export async function healthRoutes(app: FastifyInstance, opts: HealthOptions) {
  const hide = { hide: true };
  app.get('/healthz', { schema: hide }, async () => ({ status: 'ok' }));

  // Unauthenticated: a failure is named, never detailed (an error may carry the database's address); the detail is logged.
  app.get('/readyz', { schema: hide }, async (request, reply) => {
    const checks: Record<string, string> = {};
    let ok = true;
    try {
      await opts.storage.ping();
      checks.storage = `ok (${opts.storage.capabilities.engine}, schema ${opts.storage.schemaVersion})`;
    } catch (error) {
      ok = false;
      checks.storage = 'unreachable';
      request.log.warn({ err: error }, 'readiness: storage unreachable');
    }
    for (const check of opts.extraChecks ?? []) {
      try {
        await check();
        checks[check.name || 'check'] = 'ok';
      } catch (error) {
        ok = false;
        checks[check.name || 'check'] = 'failed';
        request.log.warn({ err: error, check: check.name }, 'readiness: a check failed');
      }
    }
    // The cluster view is information, not a check: the storage check above already says whether
    // the table it is read from is reachable.
    const instances = opts.instances ? await opts.instances().catch(() => undefined) : undefined;
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', checks, ...(instances ? { instances: instances.map(instanceJson) } : {}) });
  });

  app.get('/metrics', { schema: hide }, async (_request, reply) => {
    reply.type(opts.metrics.contentType);
    return opts.metrics.metrics();
  });
}

function instanceJson(i: InstanceView) {
  return {
    id: i.id,
    self: i.self,
    in_flight: i.inFlight,
    last_heartbeat: i.lastHeartbeat,
    heartbeat_age_ms: i.heartbeatAgeMs,
    started_at: i.startedAt,
  };
}
