import type { FastifyRequest } from 'fastify';

/**
 * Which envelope family a request belongs to (contract 1): the customer-service `/api` surface,
 * or the IM surface (`/management/...`, `/{org}/{app}/...`) and everything else.
 */
export type Surface = 'api' | 'im';

export function surfaceOf(url: string): Surface {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') ? 'api' : 'im';
}

export const requestSurface = (request: FastifyRequest): Surface => surfaceOf(request.url);
