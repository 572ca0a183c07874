/**
 * Every error status in both envelopes of contract 1, rendered by the one error handler.
 * A bare Fastify instance carries the real error handling, rate limiting and routes on both
 * surfaces, so each failure kind can be provoked on demand.
 */
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { registerErrorHandling } from '../../src/http/plugins/errors.js';
import { registerRateLimit } from '../../src/http/plugins/rate-limit.js';
import { FakeClock } from '../helpers/clock.js';

let app: FastifyInstance;
/** The app's clock: IM error envelopes read their timestamp on it. */
const clock = new FakeClock();

const bodySchema = {
  body: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, kind: { type: 'string', enum: ['a', 'b'] } } },
};

beforeAll(async () => {
  app = Fastify({ bodyLimit: 1024 });
  app.decorateRequest('clock', { getter: () => clock });
  app.decorateRequest('startedAt', 0);
  app.addHook('onRequest', async (request) => {
    request.startedAt = clock.now();
  });
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  for (const prefix of ['/api/things', '/acme/shop/things']) {
    await app.register(async (ctx) => {
      await registerRateLimit(ctx, { max: 1000, timeWindowMs: 60_000, keyGenerator: () => prefix });
      ctx.post(`${prefix}`, { schema: bodySchema }, async (request) => ({ ok: true, body: request.body }));
      ctx.get(`${prefix}/limited`, { config: { rateLimit: { max: 2, timeWindow: 60_000 } } }, async () => ({ ok: true }));
      ctx.get(`${prefix}/unauthorized`, async () => {
        throw new AppError('unauthorized');
      });
      ctx.get(`${prefix}/forbidden`, async () => {
        throw new AppError('forbidden', { detail: 'not yours' });
      });
      ctx.get(`${prefix}/missing`, async () => {
        throw new AppError(prefix.startsWith('/api') ? 'not_found' : 'service_resource_not_found', { resource: 'Thing 7' });
      });
      ctx.get(`${prefix}/conflict`, async () => {
        throw new AppError('conflict', { resource: 'Thing', detail: 'name x' });
      });
      ctx.get(`${prefix}/crash`, async () => {
        throw new Error('database exploded at /secret/path');
      });
    });
  }
  await app.ready();
});
afterAll(async () => app.close());

type Case = { name: string; status: number; code: Record<'api' | 'im', string>; req: (p: string) => InjectOptions };

const cases: Case[] = [
  { name: 'missing field', status: 400, code: { api: 'invalid_request', im: 'illegal_argument' }, req: (p) => ({ method: 'POST', url: p, payload: { kind: 'a' } }) },
  { name: 'unknown enum value', status: 400, code: { api: 'invalid_request', im: 'illegal_argument' }, req: (p) => ({ method: 'POST', url: p, payload: { name: 'x', kind: 'z' } }) },
  { name: 'malformed JSON', status: 400, code: { api: 'invalid_json', im: 'invalid_json' }, req: (p) => ({ method: 'POST', url: p, payload: '{"name":', headers: { 'content-type': 'application/json' } }) },
  { name: 'no credentials', status: 401, code: { api: 'unauthorized', im: 'unauthorized' }, req: (p) => ({ method: 'GET', url: `${p}/unauthorized` }) },
  { name: 'not allowed', status: 403, code: { api: 'forbidden', im: 'forbidden' }, req: (p) => ({ method: 'GET', url: `${p}/forbidden` }) },
  { name: 'unknown resource', status: 404, code: { api: 'not_found', im: 'service_resource_not_found' }, req: (p) => ({ method: 'GET', url: `${p}/missing` }) },
  { name: 'unknown route', status: 404, code: { api: 'route_not_found', im: 'route_not_found' }, req: (p) => ({ method: 'GET', url: `${p}/nowhere/at/all` }) },
  { name: 'wrong method', status: 405, code: { api: 'method_not_allowed', im: 'method_not_allowed' }, req: (p) => ({ method: 'DELETE', url: `${p}/forbidden` }) },
  { name: 'duplicate', status: 409, code: { api: 'conflict', im: 'conflict' }, req: (p) => ({ method: 'GET', url: `${p}/conflict` }) },
  { name: 'body too large', status: 413, code: { api: 'payload_too_large', im: 'payload_too_large' }, req: (p) => ({ method: 'POST', url: p, payload: { name: 'x'.repeat(2000) } }) },
  { name: 'wrong content type', status: 415, code: { api: 'unsupported_media_type', im: 'unsupported_media_type' }, req: (p) => ({ method: 'POST', url: p, payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }) },
  { name: 'internal failure', status: 500, code: { api: 'internal_error', im: 'internal_error' }, req: (p) => ({ method: 'GET', url: `${p}/crash` }) },
];

describe.each([
  ['api', '/api/things'],
  ['im', '/acme/shop/things'],
] as const)('%s envelope', (surface, prefix) => {
  it.each(cases)('$status for $name', async ({ status, code, req }) => {
    const res = await app.inject(req(prefix));
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    const body = res.json();
    if (surface === 'api') {
      expect(Object.keys(body).sort()).toEqual(['errorCode', 'errorDescription', 'requestId', 'status']);
      expect(body).toMatchObject({ status: 'FAIL', errorCode: code.api });
    } else {
      expect(Object.keys(body).sort()).toEqual(['duration', 'error', 'error_description', 'exception', 'timestamp']);
      expect(body.error).toBe(code.im);
      expect(body.exception).toMatch(/Exception$/);
      expect(body.timestamp).toBe(clock.now());
      expect(body.duration).toBe(0);
    }
    // Never a stack trace or internal detail.
    expect(res.body).not.toContain('exploded');
    expect(res.body).not.toMatch(/\bat \S+ \(/);
  });

  it('names the offending field in validation errors', async () => {
    const res = await app.inject({ method: 'POST', url: prefix, payload: { name: 'x', kind: 'z' } });
    const description = surface === 'api' ? res.json().errorDescription : res.json().error_description;
    expect(description).toContain('kind');
  });

  it('lists allowed methods on 405', async () => {
    const res = await app.inject({ method: 'PUT', url: prefix });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers 429 with Retry-After once the limit is spent', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 3; i++) {
      last = await app.inject({ method: 'GET', url: `${prefix}/limited` });
      statuses.push(last.statusCode);
    }
    expect(statuses).toContain(429);
    const limited = last!;
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const body = limited.json();
    if (surface === 'api') expect(body.errorCode).toBe('rate_limited');
    else expect(body.error).toBe('reach_limit');
  });
});
