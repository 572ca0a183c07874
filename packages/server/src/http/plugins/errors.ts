import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ERRORS, isErrorCode, type ApiErrorBody, type ErrorCode, type ImErrorBody } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import { isUnavailable } from '../../storage/errors.js';
import { requestSurface, type Surface } from '../surface.js';

/** Longest path segment Fastify matches (its `maxParamLength`); longer ones are 414 `uri_too_long`. */
export const MAX_PARAM_LENGTH = 100;

/** Generic failures that have a different stable code on each surface. */
const SURFACE_CODES: Record<string, Record<Surface, ErrorCode>> = {
  validation: { api: 'invalid_request', im: 'illegal_argument' },
  not_found: { api: 'not_found', im: 'service_resource_not_found' },
  rate_limited: { api: 'rate_limited', im: 'reach_limit' },
};

export function surfaceCode(kind: keyof typeof SURFACE_CODES, surface: Surface): ErrorCode {
  return (SURFACE_CODES[kind] as Record<Surface, ErrorCode>)[surface];
}

/** Turns anything thrown during a request into an AppError; `bodyLimit` is the route's, for a 413's message. */
export function toAppError(error: unknown, surface: Surface, bodyLimit?: number): AppError {
  if (error instanceof AppError) return error;
  const e = error as Partial<FastifyError> & { validation?: unknown; validationContext?: string };
  if (e.validation) {
    const detail = (e.message ?? 'invalid input').replace(/^(body|querystring|params|headers)\//, '$1.');
    return new AppError(surfaceCode('validation', surface), { detail }, { cause: error });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', { detail: e.message ?? 'malformed JSON' }, { cause: error });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', { limit: bodyLimit ?? 'the' }, { cause: error });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', { contentType: 'of this request' }, { cause: error });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long', { limit: MAX_PARAM_LENGTH }, { cause: error });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(surfaceCode('validation', surface), { detail: 'Content-Length does not match the body' }, { cause: error });
  }
  if (e.statusCode === 429) return new AppError(surfaceCode('rate_limited', surface), { retryAfter: '?' }, { cause: error });
  if (e.statusCode === 413) return new AppError('payload_too_large', { limit: bodyLimit ?? 'the' }, { cause: error });
  if (e.statusCode === 415) return new AppError('unsupported_media_type', { contentType: 'of this request' }, { cause: error });
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    // Any other client error raised by a plugin: surface it as bad input with its message.
    return new AppError(surfaceCode('validation', surface), { detail: e.message ?? 'bad request' }, { cause: error });
  }
  if (isUnavailable(error)) {
    return new AppError('service_unavailable', { detail: 'a backing service is unreachable' }, { cause: error, headers: { 'retry-after': '1' } });
  }
  return new AppError('internal_error', {}, { cause: error });
}

/** What an error envelope tells of its request. */
export type RequestFacts = Pick<FastifyRequest, 'id' | 'startedAt'>;

export function renderError(error: AppError, request: RequestFacts, surface: Surface): ApiErrorBody | ImErrorBody {
  const message = error.message;
  if (surface === 'api') {
    return { status: 'FAIL', errorCode: error.code, errorDescription: message, requestId: String(request.id) };
  }
  const now = Date.now();
  return {
    error: error.code,
    error_description: message,
    exception: ERRORS[error.code].exception,
    timestamp: now,
    duration: Math.max(0, Math.round(now - request.startedAt)),
  };
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError): FastifyReply {
  const surface = requestSurface(request);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(renderError(error, request, surface));
}

/**
 * Fastify's `frameworkErrors`: what its router rejects before any route or hook runs (a path
 * segment over MAX_PARAM_LENGTH, a malformed percent-encoding), answered in the envelope.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.startedAt = Date.now();
  reply.header('x-request-id', request.id);
  const appError = toAppError(error, requestSurface(request));
  request.log.info({ code: appError.code, status: appError.status }, appError.message);
  return sendError(reply, request, appError);
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
    const appError = toAppError(error, requestSurface(request), request.routeOptions.bodyLimit);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code, status: appError.status }, appError.message);
    return sendError(reply, request, appError);
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

export { isErrorCode };
