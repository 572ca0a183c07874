/**
 * For a POST whose whole body is optional (e.g. `POST …/secret` with `{overlap_seconds?}`): a request
 * without a body is validated, and handled, as `{}`. Used as the route's `preValidation`.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export function absentBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}
