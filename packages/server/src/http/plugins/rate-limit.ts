import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../../kernel/errors.js';
import { surfaceCode } from '../failures.js';
import { requestSurface } from '../surface.js';

export interface RateLimitOptions {
  max: number;
  timeWindowMs: number;
  /** Shared store when several instances run; in-memory otherwise. */
  redis?: Redis | undefined;
  keyGenerator?: (request: FastifyRequest) => string;
  /** Namespace of the counters in Redis. */
  nameSpace?: string;
}

/**
 * Rate limiting for the routes of the encapsulating context. A limited request gets 429 in its
 * surface's envelope with `Retry-After`.
 */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.timeWindowMs,
    ...(options.redis ? { redis: options.redis } : {}),
    nameSpace: options.nameSpace ?? 'parley-rl-',
    keyGenerator: options.keyGenerator ?? ((request) => request.clientAddress),
    errorResponseBuilder: (request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError(
        surfaceCode('rate_limited', requestSurface(request)),
        { retryAfter },
        { headers: { 'retry-after': String(retryAfter) } },
      );
    },
  });
}
