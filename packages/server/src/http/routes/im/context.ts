/**
 * Per-request IM context: the app named by `/{org}/{app}` (404 when unknown) and the caller's
 * token level. Routes say what they need with `config.imAuth`:
 *   public  no token (token endpoint, which checks its own credentials and charges the app)
 *   admin   an app-admin token; a user token gets 403
 *   user    an app-admin token or a user token (the route checks the user is the one concerned)
 *   a scope an app-admin token, or a user token within it: `{ self: 'username' }` (the path names the
 *           token's user), `{ member: 'id', kind }` (a group the user belongs to), access.ts
 *
 * Rate limits (http/auth-failures.ts): an IP with too many failed authentications at this app is
 * refused first; a request whose token fails is counted against its IP; only a request whose
 * token holds is charged to the app's own limit, so strangers cannot use up a real client's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import type { ImAppsService, ImPrincipal } from '../../../modules/im/apps.js';
import type { ImGroupsService } from '../../../modules/im/groups.js';
import type { ImApp } from '../../../modules/im/ports.js';
import { failureKey, noteFailure, tooMany, type GuardedLimits } from '../../auth-failures.js';
import { bearerToken } from '../../plugins/bearer.js';
import { assertScope, isScope, type GroupRoleOf, type ImScope } from './access.js';

export type ImAuth = 'public' | 'admin' | 'user' | ImScope;

declare module 'fastify' {
  interface FastifyRequest {
    imApp: ImApp | null;
    imPrincipal: ImPrincipal | null;
  }
  interface FastifyContextConfig {
    imAuth?: ImAuth;
  }
}

/** Failures of a credential, as opposed to refusals of an authenticated caller. */
const CREDENTIAL_FAILURES = new Set(['unauthorized', 'auth_bad_access_token', 'invalid_grant']);

export const isCredentialFailure = (error: unknown): boolean => error instanceof AppError && CREDENTIAL_FAILURES.has(error.code);

/** The caller's role in a group of the app (404 when the group does not exist). */
function groupRoleOf(groups: ImGroupsService, imApp: ImApp): GroupRoleOf {
  return async (kind, groupId, username) => {
    const group = await groups.require(imApp, kind, groupId);
    if (group.owner === username) return 'owner';
    return (await groups.isMember(group, username)) ? 'member' : null;
  };
}

export function registerImContext(app: FastifyInstance, apps: ImAppsService, groups: ImGroupsService, limits: GuardedLimits): void {
  app.decorateRequest('imApp', null);
  app.decorateRequest('imPrincipal', null);
  app.addHook('onRequest', async (request, reply) => {
    const params = request.params as { org?: string; app?: string };
    if (!params.org || !params.app) throw new AppError('organization_application_not_found', { org: params.org ?? '', app: params.app ?? '' });
    const imApp = await apps.requireApp(params.org, params.app).catch((error: unknown) => {
      // A preflight matches any path: one of no app (`/api/...`, the console) is the router's 404 or 405.
      if (request.method === 'OPTIONS' && error instanceof AppError && error.code === 'organization_application_not_found') return undefined;
      throw error;
    });
    if (!imApp) {
      reply.callNotFound();
      return reply;
    }
    request.imApp = imApp;
    const blocked = await limits.failures.peek(failureKey(request.clientAddress, imApp.appkey));
    if (blocked > 0) throw tooMany('reach_limit', blocked);
    const auth = request.routeOptions.config.imAuth ?? 'admin';
    if (auth === 'public') return;
    const query = request.query as { access_token?: unknown } | undefined;
    const token = bearerToken(request) ?? (typeof query?.access_token === 'string' ? query.access_token : undefined);
    let principal: ImPrincipal;
    try {
      principal = await apps.authenticate(imApp, token);
    } catch (error) {
      if (isCredentialFailure(error)) noteFailure(limits, request.clientAddress, imApp.appkey);
      throw error;
    }
    await chargeApp(limits, imApp);
    if (auth === 'admin' && principal.level !== 'admin') throw new AppError('forbidden', { detail: 'this operation requires an app admin token' });
    if (isScope(auth)) await assertScope(principal, auth, request.params as Record<string, string | undefined>, groupRoleOf(groups, imApp));
    request.imPrincipal = principal;
  });
}

/** Charges one request to the app's own limit (PARLEY_IM_RATE_LIMIT a second); 429 `reach_limit` beyond. */
export async function chargeApp(limits: GuardedLimits, imApp: ImApp): Promise<void> {
  const wait = await limits.own.take(imApp.appkey);
  if (wait > 0) throw tooMany('reach_limit', wait);
}

export function imAppOf(request: FastifyRequest): ImApp {
  if (!request.imApp) throw new AppError('organization_application_not_found', { org: '', app: '' });
  return request.imApp;
}

/** Who a request acts as in a group operation: its user, or the app (`null`) for an app-admin token. */
export function operatorOf(request: FastifyRequest): string | null {
  const principal = request.imPrincipal;
  return !principal || principal.level === 'admin' ? null : principal.username;
}
