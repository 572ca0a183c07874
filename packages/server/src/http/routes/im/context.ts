/**
 * Per-request IM context: the app named by `/{org}/{app}` (404 when unknown) and the caller's
 * token level. Routes say what they need with `config.imAuth`:
 *   public  no token (token endpoint)
 *   admin   an app-admin token; a user token gets 403
 *   user    an app-admin token or a user token (routes then check the user is the one concerned)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import type { ImAppsService, ImPrincipal } from '../../../modules/im/apps.js';
import type { ImApp } from '../../../modules/im/ports.js';
import { bearerToken } from '../../plugins/bearer.js';

export type ImAuth = 'public' | 'admin' | 'user';

declare module 'fastify' {
  interface FastifyRequest {
    imApp: ImApp | null;
    imPrincipal: ImPrincipal | null;
  }
  interface FastifyContextConfig {
    imAuth?: ImAuth;
  }
}

export function registerImContext(app: FastifyInstance, apps: ImAppsService): void {
  app.decorateRequest('imApp', null);
  app.decorateRequest('imPrincipal', null);
  app.addHook('onRequest', async (request) => {
    const params = request.params as { org?: string; app?: string };
    if (!params.org || !params.app) throw new AppError('organization_application_not_found', { org: params.org ?? '', app: params.app ?? '' });
    const imApp = await apps.requireApp(params.org, params.app);
    request.imApp = imApp;
    const auth = request.routeOptions.config.imAuth ?? 'admin';
    if (auth === 'public') return;
    const query = request.query as { access_token?: unknown } | undefined;
    const token = bearerToken(request) ?? (typeof query?.access_token === 'string' ? query.access_token : undefined);
    const principal = await apps.authenticate(imApp, token);
    if (auth === 'admin' && principal.level !== 'admin') throw new AppError('forbidden', { detail: 'this operation requires an app admin token' });
    request.imPrincipal = principal;
  });
}

export function imAppOf(request: FastifyRequest): ImApp {
  if (!request.imApp) throw new AppError('organization_application_not_found', { org: '', app: '' });
  return request.imApp;
}

/** An admin token, or the user token of `username` itself. */
export function assertSelfOrAdmin(request: FastifyRequest, username: string): void {
  const principal = request.imPrincipal;
  if (!principal) throw new AppError('unauthorized');
  if (principal.level === 'admin') return;
  if (principal.username !== username.trim().toLowerCase()) throw new AppError('forbidden', { detail: 'a user token may only read its own user' });
}
