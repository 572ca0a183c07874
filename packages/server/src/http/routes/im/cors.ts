/**
 * CORS on the IM REST surface (contract 6.8): every route under `/{org}/{app}` (the token endpoint
 * included) carries `Access-Control-Allow-Origin` for the app's allowed origins and answers
 * preflights; never `Access-Control-Allow-Credentials` (tokens travel in `Authorization`, never in
 * cookies). The console and `/api` are other scopes and never answer CORS. The origins are the app
 * setting `allowed_origins` (`GET|PUT /{org}/{app}/allowed_origins`, app token; default `["*"]`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ImEnvelope } from '@parley/protocol';
import type { ImAppsService } from '../../../modules/im/apps.js';
import { imData } from '../../../modules/im/envelope.js';
import { ANY_ORIGIN, corsOrigin, MAX_ORIGINS, type AllowedOriginsService } from '../../../modules/im/origins.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, restrict-access';
export const CORS_ALLOW_METHODS = 'GET, POST, PUT, DELETE';
/** How long a browser may reuse a preflight's answer, in seconds. */
export const CORS_MAX_AGE = '600';

/**
 * Adds the CORS headers to every answer of the scope, errors included (the browser shows the
 * app its 401 or 429 instead of a network error). Registered before the IM context's hook, so
 * a request that hook refuses still carries them; an unknown app carries none.
 */
export function registerImCors(scope: FastifyInstance, apps: ImAppsService, origins: AllowedOriginsService): void {
  scope.addHook('onRequest', async (request, reply) => {
    const params = request.params as { org?: string; app?: string };
    if (!params.org || !params.app) return;
    let allowed: readonly string[];
    try {
      allowed = await origins.of(await apps.requireApp(params.org, params.app));
    } catch {
      return; // the IM context answers it (unknown app, storage down)
    }
    const value = corsOrigin(allowed, request.headers.origin);
    if (!allowed.includes(ANY_ORIGIN)) reply.header('vary', 'Origin');
    if (!value) return;
    reply.header('access-control-allow-origin', value);
    reply.header('access-control-expose-headers', 'x-request-id, retry-after');
    if (request.method === 'OPTIONS') {
      reply.header('access-control-allow-methods', CORS_ALLOW_METHODS);
      reply.header('access-control-allow-headers', CORS_ALLOW_HEADERS);
      reply.header('access-control-max-age', CORS_MAX_AGE);
    }
  });
}

const OriginsBody = Type.Object(
  { allowed_origins: Type.Array(Type.String({ maxLength: 300 }), { maxItems: MAX_ORIGINS, description: '`"*"` (every origin) or origins `scheme://host[:port]`' }) },
  { additionalProperties: false, examples: [{ allowed_origins: ['https://chat.example.com'] }] },
);

/** Preflights of every IM route, and the app's allowed origins. */
export const imCorsRoutes: FastifyPluginAsyncTypebox<{ origins: AllowedOriginsService }> = async (app, { origins }) => {
  // The headers are the hook's; a preflight from an origin not allowed gets none, and the browser stops there.
  app.options('/*', { config: { imAuth: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());

  const tags = ['im'];
  const response = { 200: ImEnvelope(OriginsBody), ...imErrors(...IM_ADMIN_ERRORS) };
  app.get('/allowed_origins', { schema: { tags, summary: 'Read the browser origins allowed to call the IM REST routes (CORS)', security: IM_TOKEN, response } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, { allowed_origins: [...(await origins.of(imApp))] });
  });
  app.put(
    '/allowed_origins',
    { schema: { tags, summary: 'Set the browser origins allowed to call the IM REST routes (CORS)', security: IM_TOKEN, body: OriginsBody, response } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, { allowed_origins: await origins.set(imApp, request.body.allowed_origins) });
    },
  );
};
