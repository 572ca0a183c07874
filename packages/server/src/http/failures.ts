/**
 * What anything thrown during a request answers, on either transport: its AppError
 * (`toAppError`, which also reads Fastify's own errors) and the surface's envelope (`renderError`).
 * The pipeline's errors step (pipeline.ts) logs and renders with these.
 */
import type { FastifyError } from 'fastify';
import { ERRORS, type ApiErrorBody, type ErrorCode, type ImErrorBody } from '@parley/protocol';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import { isUnavailable } from '../storage/errors.js';
import type { Surface } from './surface.js';

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

/** What an error envelope tells of its request: its id, and when it arrived on the app's clock. */
export interface EnvelopeFacts {
  readonly id: string;
  readonly startedAt: number;
  readonly clock: Clock;
}

export function renderError(error: AppError, request: EnvelopeFacts, surface: Surface): ApiErrorBody | ImErrorBody {
  const message = error.message;
  if (surface === 'api') {
    return { status: 'FAIL', errorCode: error.code, errorDescription: message, requestId: String(request.id) };
  }
  const now = request.clock.now();
  return {
    error: error.code,
    error_description: message,
    exception: ERRORS[error.code].exception,
    timestamp: now,
    duration: Math.max(0, Math.round(now - request.startedAt)),
  };
}
