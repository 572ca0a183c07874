import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError } from '../../kernel/errors.js';
import { renderError } from '../failures.js';
import { failure } from '../pipeline.js';
import { requestSurface } from '../surface.js';

export function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError): FastifyReply {
  const surface = requestSurface(request);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(renderError(error, request, surface));
}

/**
 * Global error and not-found handling. Registered with fastify-plugin semantics (on the root
 * instance) so every surface shares it; the surface is read from the URL.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  // A method-agnostic copy of the route table, to tell "no such path" (404) from "wrong method" (405).
  const paths = FindMyWay<FindMyWay.HTTPVersion.V1>();
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = methodsByPath.get(route.url);
    if (!set) {
      set = new Set();
      methodsByPath.set(route.url, set);
      try {
        paths.on('GET', route.url, () => undefined, { pattern: route.url });
      } catch {
        // Two patterns that find-my-way considers equal (e.g. differently named params): keep the first.
      }
    }
    for (const m of methods) set.add(m.toUpperCase());
  });

  app.setErrorHandler((error, request, reply) => {
    return sendError(reply, request, failure(error, request, requestSurface(request), request.routeOptions.bodyLimit));
  });

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? request.url;
    const found = paths.find('GET', url);
    const pattern = (found?.store as { pattern?: string } | undefined)?.pattern;
    const allowed = pattern ? methodsByPath.get(pattern) : undefined;
    if (allowed && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      return sendError(reply, request, new AppError('method_not_allowed', { method: request.method, url, allow }, { headers: { allow } }));
    }
    return sendError(reply, request, new AppError('route_not_found', { method: request.method, url }));
  });
}

