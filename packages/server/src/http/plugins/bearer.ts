import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors.js';
import type { AccountsService, Principal } from '../../modules/accounts/service.js';
import { requestToken } from './session-cookie.js';

export { bearerToken, requestToken } from './session-cookie.js';

/**
 * Console API auth: every route in the encapsulating context needs a valid token, as an
 * Authorization bearer or the console's session cookie (session-cookie.ts), unless its config
 * says `public: true`.
 */
export function registerBearerAuth(app: FastifyInstance, accounts: AccountsService): void {
  // preValidation, not onRequest: the rate limiter's per-route onRequest hook must run first so
  // unauthenticated floods are limited too; auth still precedes body validation (401 before 400).
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.public) return;
    const token = requestToken(request);
    if (!token) throw new AppError('unauthorized');
    const principal = await accounts.authenticate(token);
    if (!principal) throw new AppError('unauthorized');
    request.principal = principal;
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized');
  return request.principal;
}
