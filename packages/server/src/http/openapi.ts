/**
 * The OpenAPI document at /openapi.json (Swagger UI at /docs), built by @fastify/swagger from the
 * route schemas. This file holds what every route's schema shares: the security schemes, the two
 * error envelopes as named components, and the helpers that add a route's error answers in one
 * call (`apiErrors(401, 404)`, `imErrors(400, 404)`).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ApiErrorSchema, ImErrorSchema, type ApiErrorBody, type ImErrorBody } from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { docsContentSecurityPolicy } from './plugins/security-headers.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The operation takes no request body (the OpenAPI completeness test asks every POST and PUT for one otherwise). */
    'x-no-body'?: boolean;
  }
}

/** Component names of the error envelopes (`#/components/schemas/...`). */
export const API_ERROR = 'ApiError';
export const IM_ERROR = 'ImError';

/** Security of a console-API operation: the bearer token from `POST /api/login` (or the session cookie). */
export const API_BEARER = [{ bearer: [] }];
/** Security of an IM operation: an app-admin or user token from `POST /{org}/{app}/token`. */
export const IM_TOKEN = [{ imToken: [] }];
/** The send-message API: `Authorization: hmac {clientId}:{signature}` with `X-Auth-Expires`. */
export const HMAC = [{ hmac: [] }];
/** An operation anyone may call. */
export const PUBLIC: Array<Record<string, string[]>> = [];

/** What each error status means, as the response's description. */
const MEANING: Record<number, string> = {
  400: 'Bad input: one message naming the field',
  401: 'Missing, invalid or expired credentials',
  403: 'Authenticated, but not allowed to do this',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'Body too large',
  415: 'This Content-Type is not accepted here',
  429: 'Too many requests; see Retry-After',
  503: 'Temporarily unavailable; see Retry-After',
};

const errorRef = <T>(id: string, status: number) =>
  Type.Unsafe<T>({ $ref: `${id}#`, description: MEANING[status] ?? 'Error' });

/** The customer-service (`/api`) error envelope for each status: `response: { 200: ..., ...apiErrors(401, 404) }`. */
export function apiErrors<S extends number>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((status) => [status, errorRef<ApiErrorBody>(API_ERROR, status)])) as Record<S, ReturnType<typeof errorRef<ApiErrorBody>>>;
}

/** The IM error envelope for each status: `response: { 200: ..., ...imErrors(400, 404) }`. */
export function imErrors<S extends number>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((status) => [status, errorRef<ImErrorBody>(IM_ERROR, status)])) as Record<S, ReturnType<typeof errorRef<ImErrorBody>>>;
}

/** The answers every IM route behind the app context can give: bad input, token, app unknown, limit. */
export const IM_ADMIN_ERRORS = [400, 401, 403, 404, 429] as const;

/**
 * Registers the envelopes as shared schemas (so routes reference them and Fastify serializes
 * errors with them), the document, `/openapi.json` and the Swagger UI at `/docs`.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema({ ...ApiErrorSchema, $id: API_ERROR, title: API_ERROR });
  app.addSchema({ ...ImErrorSchema, $id: IM_ERROR, title: IM_ERROR });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Parley',
        version: '0.1.0',
        description: `Customer-service REST channel and IM post-send callbacks. Errors answer in the surface's envelope: \`${API_ERROR}\` on /api, \`${IM_ERROR}\` elsewhere. The IM socket and its frames are described on \`GET /{org}/{app}/ws\`.`,
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Console token from POST /api/login (the console sends its session cookie instead)' },
          imToken: { type: 'http', scheme: 'bearer', description: 'IM token from POST /{org}/{app}/token: an app-admin token (client_credentials) or a user token (password)' },
          hmac: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: '`hmac {clientId}:{signature}`: HMAC-SHA256 of the request with the association\'s Client Secret, with the header `X-Auth-Expires` (spec 2.2)',
          },
        },
      },
      security: API_BEARER,
    },
    // Shared schemas keep their own name in the document (`ApiError`, not `def-0`).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, transformStaticCSP: docsContentSecurityPolicy });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
