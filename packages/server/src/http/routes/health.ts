import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Storage } from '../../storage/index.js';

/** Process health, readiness and Prometheus metrics. Unauthenticated, outside both surfaces' auth. */
export async function healthRoutes(app: FastifyInstance, opts: { storage: Storage; metrics: Registry; extraChecks?: Array<() => Promise<void>> }) {
  const hide = { hide: true };
  app.get('/healthz', { schema: hide }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: hide }, async (_request, reply) => {
    const checks: Record<string, string> = {};
    let ok = true;
    try {
      await opts.storage.ping();
      checks.storage = `ok (${opts.storage.capabilities.engine}, schema ${opts.storage.schemaVersion})`;
    } catch (error) {
      ok = false;
      checks.storage = `unreachable: ${(error as Error).message}`;
    }
    for (const check of opts.extraChecks ?? []) {
      try {
        await check();
        checks[check.name || 'check'] = 'ok';
      } catch (error) {
        ok = false;
        checks[check.name || 'check'] = `failed: ${(error as Error).message}`;
      }
    }
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', { schema: hide }, async (_request, reply) => {
    reply.type(opts.metrics.contentType);
    return opts.metrics.metrics();
  });
}
