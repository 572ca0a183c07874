import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';

/**
 * Contract 6.8: a route whose path names a user `{u}` may be called by the app token, or by the
 * user token of `{u}` itself; any other user's token gets 403 `forbidden_op`. Returns the folded
 * user name. (Kept in one function so the shared user-token guard can replace it.)
 */
export function assertOwnUser(request: FastifyRequest, username: string): string {
  const principal = request.imPrincipal;
  if (!principal) throw new AppError('unauthorized');
  const folded = username.trim().toLowerCase();
  if (principal.level !== 'admin' && principal.username !== folded) throw new AppError('forbidden_op', { detail: `a user token may only act for its own user, not ${folded}` });
  return folded;
}
