import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { renderError, type EnvelopeFacts } from '../failures.js';
import { failure } from '../pipeline.js';
import { requestSurface } from '../surface.js';

/** Sends `error` in the request's envelope; `facts` are the request's own unless given. */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError, facts: EnvelopeFacts = request): FastifyReply {
  const surface = requestSurface(request);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(renderError(error, facts, surface));
}

/**
 * Fastify's `frameworkErrors`: what its router rejects before any route or hook runs (a path
 * segment over MAX_PARAM_LENGTH, a malformed percent-encoding), answered in the envelope. Such a
 * request is not one of the app's decorated requests: its facts are made here, on `clock`.
 */
export function frameworkErrors(clock: Clock) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const facts = { id: request.id, startedAt: clock.now(), clock, log: request.log };
    reply.header('x-request-id', request.id);
    return sendError(reply, request, failure(error, facts, requestSurface(request)), facts);
  };
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

