/**
 * The node:http server and the Fastify instance on it: request ids and the access log (the
 * pipeline's, http/pipeline.ts), body and parameter limits, proxy trust, validation options, and
 * the send-message lane in front of Fastify's handler.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config, ServerLimits } from '../config/index.js';
import type { trustProxy } from '../http/client-address.js';
import { buildValidatorPerPart } from '../http/input-guard.js';
import { MAX_PARAM_LENGTH } from '../http/failures.js';
import { schemaErrorFormatter } from '../http/validation-messages.js';
import { requestIdOf, type HttpPipeline } from '../http/pipeline.js';
import { frameworkErrors, PipelineLogController } from '../http/plugins/pipeline.js';
import type { SendMessageLane } from '../http/send-message/lane.js';
import { loggerOptions } from '../kernel/logger.js';
import type { AppDeps } from './parley.js';

/**
 * The node:http server, with the limits against slow and idle clients (config.server): a request
 * must arrive whole within requestTimeoutMs (headers within headersTimeoutMs) or it is answered
 * 408 and closed; connections beyond maxConnections are closed as they are accepted.
 */
export function createHttpServer(limits: ServerLimits, listener: RequestListener): Server {
  // How often node:http looks for requests past their time: often enough for the shortest limit.
  const connectionsCheckingInterval = Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 2)));
  const server = createServer({ requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval }, listener);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

/** Where the send-message lane is set once the channel module exists (composition/routes.ts). */
export interface LaneSlot {
  current?: SendMessageLane;
}

/**
 * The Fastify instance, never listening. The send-message lane serves its route on the socket
 * before Fastify sees the request (http/send-message/lane.ts); until `lane.current` is set every
 * request goes to Fastify.
 */
export function createFastify(config: Config, deps: AppDeps, pipeline: HttpPipeline, lane: LaneSlot, trusted: ReturnType<typeof trustProxy>) {
  return Fastify({
    logger: deps.logStream ? { ...loggerOptions(config.logLevel), stream: deps.logStream } : loggerOptions(config.logLevel),
    genReqId: (req) => requestIdOf(req.headers),
    logController: new PipelineLogController(pipeline),
    serverFactory: (handler) => createHttpServer(config.server, (req, res) => {
      if (!lane.current?.handle(req, res)) handler(req, res);
    }),
    requestIdHeader: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(pipeline),
    bodyLimit: config.bodyLimitBytes,
    // X-Forwarded-Proto and -Host only from the trusted proxies (request.protocol, request.host).
    // The client's address is request.clientAddress, read as the lane reads it (http/client-address.ts).
    trustProxy: trusted ? (address: string) => trusted(address) : false,
    // The pipeline's closing step answers instead, in the surface's envelope (http/pipeline.ts).
    return503OnClosing: false,
    // Coercion for query strings, params and headers only (http/input-guard.ts).
    // `verbose`: each error carries its schema and value, for one readable message (http/validation-messages.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false, verbose: true } },
    schemaErrorFormatter,
    schemaController: { compilersFactory: { buildValidator: buildValidatorPerPart() } },
  }).withTypeProvider<TypeBoxTypeProvider>();
}

export type ParleyFastify = ReturnType<typeof createFastify>;
