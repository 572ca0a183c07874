/**
 * A signed call of the send-message API (serve.ts) served from a Fastify route: the request's facts
 * in, the answer (already JSON text) out; a client gone before its body arrived gets no answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone, type Answer } from '../pipeline.js';
import type { SendMessageInput } from './serve.js';

export async function replyToSignedCall(
  request: FastifyRequest,
  reply: FastifyReply,
  params: { tenantId: number; channelId: number },
  serve: (input: SendMessageInput) => Promise<Answer>,
): Promise<FastifyReply> {
  const answer = await serve({
    id: request.id,
    method: request.method,
    startedAt: request.startedAt,
    clock: request.clock,
    log: request.log,
    tenantId: params.tenantId,
    channelId: params.channelId,
    url: request.raw.url ?? request.url,
    headers: request.headers,
    body: request.raw,
    clientAddress: request.clientAddress,
  }).catch((error: unknown) => {
    if (error instanceof ClientGone) return undefined;
    throw error;
  });
  // The client left before its body arrived: there is nobody to answer.
  if (!answer) return reply.hijack();
  // Fastify's serializer is not used: the answer is rendered already.
  return reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8').send(answer.body);
}
