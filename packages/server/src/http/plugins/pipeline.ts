/**
 * The pipeline's steps (http/pipeline.ts) where Fastify runs them, on the root instance so that
 * every route has them. The send-message lane calls the same steps in the same order.
 *
 *   1. request id         Fastify's genReqId (composition/http-server.ts); echoed here, onRequest
 *   2. access log, in     PipelineLogController.incomingRequest (routine reads at debug)
 *   3. closing            onRequest, after the id is echoed (the 503 names it)
 *   4. body limit         Fastify's bodyLimit (per route where it differs)
 *   5. errors             the error handler and frameworkErrors (plugins/errors.ts)
 *   6. security headers   onSend
 *   7. metrics            onResponse
 *   8. access log, out    PipelineLogController.requestCompleted
 */
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { accessLevel, logCompleted, logIncoming, securityHeaders, type HttpPipeline } from '../pipeline.js';

/** Fastify's request log lines, written by the pipeline's access-log steps. */
export class PipelineLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    logIncoming(request.log, request);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // An answer that failed while it was written keeps Fastify's own line ("request errored").
    if (error) super.requestCompleted(error, request, reply);
    else logCompleted(reply.log, reply.statusCode, reply.elapsedTime, undefined, accessLevel(request));
  }
}

export function registerPipeline(app: FastifyInstance, pipeline: HttpPipeline): void {
  const { clock, clientAddress } = pipeline;
  app.decorateRequest('clock', { getter: () => clock });
  app.decorateRequest('clientAddress', {
    getter(this: FastifyRequest) {
      return clientAddress(this.raw);
    },
  });
  app.decorateRequest('startedAt', 0);
  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = clock.now();
    reply.header('x-request-id', request.id);
    pipeline.arrive();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(securityHeaders(reply.hasHeader('content-security-policy')));
    done(null, payload);
  });
  app.addHook('onResponse', async (request, reply) => {
    pipeline.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addHook('preClose', async () => pipeline.close());
}
