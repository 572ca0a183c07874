/**
 * The send-message API on the socket, in front of Fastify.
 *
 * Customers' servers post every message here, so this one route is the hot path of Area A.
 * Fastify's per-request work (request and reply objects, hook chains, schema validation of
 * params and headers, serializer) cost about a quarter of the CPU of a request on the benchmark
 * machine. The lane matches the route's path with decimal ids and runs the pipeline's steps
 * (http/pipeline.ts) around `serveSendMessage` itself, in plain `node:http`; everything else,
 * including this path with ids that need decoding, goes to Fastify, whose route calls the same
 * `serveSendMessage` (routes/api/channel-ingest.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ClientGone, failureAnswer, logCompleted, logIncoming, requestIdOf, securityHeaders, type Answer, type HttpPipeline, type Logger } from '../pipeline.js';
import { SEND_MESSAGE_ROUTE, serveSendMessage, type SendMessageInput, type SendMessageRoute } from './serve.js';

const PATH = /^\/api\/tenants\/(\d{1,15})\/rest\/channels\/(\d{1,15})\/messages(?:\?|$)/;
const JSON_TYPE = 'application/json; charset=utf-8';

export interface SendMessageLaneOptions {
  pipeline: HttpPipeline;
  route: SendMessageRoute;
  log: Logger;
}

export class SendMessageLane {
  constructor(private readonly options: SendMessageLaneOptions) {}

  /** Serves `req` when it is a send-message POST and answers true; false leaves it to Fastify. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const match = PATH.exec(url);
    if (!match) return false;
    const tenantId = Number(match[1]);
    const channelId = Number(match[2]);
    // The route's schema wants ids >= 1; its 400 comes from Fastify.
    if (tenantId < 1 || channelId < 1) return false;
    void this.#serve(req, res, url, tenantId, channelId);
    return true;
  }

  /** The pipeline's steps in order around `serveSendMessage`. */
  async #serve(req: IncomingMessage, res: ServerResponse, url: string, tenantId: number, channelId: number): Promise<void> {
    const started = performance.now();
    const { pipeline, route, log } = this.options;
    const id = requestIdOf(req.headers);
    const input: SendMessageInput = {
      id,
      startedAt: pipeline.clock.now(),
      clock: pipeline.clock,
      log,
      reqId: id,
      tenantId,
      channelId,
      url,
      headers: req.headers,
      body: req,
      clientAddress: pipeline.clientAddress(req),
    };
    logIncoming(log, req, id);
    let answer: Answer;
    try {
      pipeline.arrive();
      answer = await serveSendMessage(route, input);
    } catch (error) {
      if (error instanceof ClientGone) return;
      answer = failureAnswer(error, input, 'api');
    }
    // An error met after the client left has nobody to go to.
    if (answer.status >= 400 && res.destroyed) return;
    res.writeHead(answer.status, {
      ...answer.headers,
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(answer.body),
      'x-request-id': id,
      ...securityHeaders(false),
    });
    res.end(answer.body);
    const seconds = (performance.now() - started) / 1000;
    pipeline.observe('POST', SEND_MESSAGE_ROUTE, answer.status, seconds);
    logCompleted(log, answer.status, seconds * 1000, id);
  }
}
