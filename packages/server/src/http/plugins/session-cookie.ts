import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors.js';

/**
 * The console's session: the bearer token in an HttpOnly, SameSite=Strict cookie, so no script
 * in the page can read it. A cookie rides along on requests the browser makes by itself, so a
 * request it authenticates that changes state must also carry `X-Parley-CSRF: 1`: a custom
 * header that a cross-site form cannot send and a cross-origin script cannot send without a
 * CORS preflight, which Parley never grants. Integrators keep sending `Authorization: Bearer`.
 */
export const SESSION_COOKIE = 'parley_session';
export const CSRF_HEADER = 'x-parley-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * The request's console token: the Authorization bearer, else the session cookie, which
 * state-changing methods accept only with the CSRF header (403 `csrf_required`).
 */
export function requestToken(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  const cookie = sessionCookieOf(request);
  if (cookie && !SAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] !== '1') throw new AppError('csrf_required');
  return cookie;
}

/** Secure when the request came over TLS or Parley is published on https. */
function secure(request: FastifyRequest): boolean {
  return request.protocol === 'https' || request.server.parley.config.publicUrl.startsWith('https:');
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  const flags = `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`;
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; ${flags}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`);
}
