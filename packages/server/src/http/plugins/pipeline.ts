/**
 * The pipeline's list (http/pipeline.ts, PIPELINE_STEPS) where Fastify runs it, on the root
 * instance so that every route has it. Each phase of the list has one place here:
 *
 *   arrive     the onRequest hook (the first one registered); its throw goes to the error handler
 *   answer     the onSend hook
 *   complete   the log controller's requestCompleted, which Fastify calls once a route's answer
 *              is written
 *
 * Requests carry the facts the steps read (RequestFacts): the app's `clock`, `startedAt` on it,
 * and `clientAddress`, read as the send-message lane reads it.
 */
import { performance } from 'node:perf_hooks';
import { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { failure, type HttpPipeline, type OutgoingHeaders } from '../pipeline.js';
import { requestSurface } from '../surface.js';
import { sendError } from './errors.js';

const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

/** Fastify's request log lines: the pipeline's access-log step writes them, in its phases. */
export class PipelineLogController extends LogController {
  constructor(private readonly pipeline: HttpPipeline) {
    super();
  }

  /** The access-log step writes "incoming request" when the request arrives (the onRequest hook). */
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // An answer that failed while it was written gets Fastify's own line ("request errored") too.
    if (error) super.requestCompleted(error, request, reply);
    this.pipeline.complete(request, routeOf(request), reply.statusCode, reply.elapsedTime);
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
  app.addHook('onRequest', async (request) => {
    request.startedAt = clock.now();
    pipeline.arrive(request);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const headers: OutgoingHeaders = {};
    pipeline.answer(request, headers, reply.hasHeader('content-security-policy'));
    reply.headers(headers);
    done(null, payload);
  });
  app.addHook('preClose', async () => pipeline.close());
}

/**
 * Fastify's `frameworkErrors`: what its router rejects before any route or hook runs (a path
 * segment over MAX_PARAM_LENGTH, a malformed percent-encoding), answered in the envelope. Such a
 * request is not one of the app's decorated requests, and neither the hooks nor the log
 * controller's requestCompleted run for it: its facts are set here, and its phases run from here.
 */
export function frameworkErrors(pipeline: HttpPipeline) {
  const { clock, clientAddress } = pipeline;
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const started = performance.now();
    Object.assign(request, { startedAt: clock.now(), clock, clientAddress: clientAddress(request.raw) });
    reply.raw.once('finish', () => pipeline.complete(request, 'unmatched', reply.statusCode, performance.now() - started));
    let thrown: unknown = error;
    try {
      pipeline.arrive(request);
    } catch (closing) {
      thrown = closing;
    }
    const headers: OutgoingHeaders = {};
    pipeline.answer(request, headers, false);
    reply.headers(headers);
    return sendError(reply, request, failure(thrown, request, requestSurface(request)));
  };
}
