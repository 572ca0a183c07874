/**
 * The `onRequest` hook of a WebSocket route: a plain HTTP request (no `Upgrade: websocket`) is
 * answered 426 `upgrade_required` in the surface's envelope, with `Upgrade: websocket`, instead of
 * the WebSocket plugin's empty 404.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';

export async function websocketOnly(request: FastifyRequest): Promise<void> {
  if (request.ws) return;
  throw new AppError('upgrade_required', { url: request.url.split('?')[0] }, { headers: { upgrade: 'websocket' } });
}
