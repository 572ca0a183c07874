/**
 * The send-message API on the socket, in front of Fastify.
 *
 * Customers' servers post every message here, so this one route is the hot path of Area A.
 * Fastify's per-request work (request and reply objects, hook chains, schema validation of
 * params and headers, serializer) cost about a quarter of the CPU of a request on the benchmark
 * machine. The lane matches the route's path with decimal ids and runs the pipeline's list
 * (http/pipeline.ts) around `serveSendMessage` itself, in plain `node:http`; everything else,
 * including this path with ids that need decoding, goes to Fastify, whose route calls the same
 * `serveSendMessage` (routes/api/channel-ingest.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ClientGone, failureAnswer, requestIdOf, type Answer, type HttpPipeline, type Logger, type OutgoingHeaders } from '../pipeline.js';
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

  /** The pipeline's list (http/pipeline.ts) around `serveSendMessage`, phase by phase. */
  async #serve(req: IncomingMessage, res: ServerResponse, url: string, tenantId: number, channelId: number): Promise<void> {
    const started = performance.now();
    const { pipeline, route, log } = this.options;
    const id = requestIdOf(req.headers);
    const input: SendMessageInput = {
      id,
      method: 'POST',
      url,
      headers: req.headers,
      socket: req.socket,
      clientAddress: pipeline.clientAddress(req),
      startedAt: pipeline.clock.now(),
      clock: pipeline.clock,
      log,
      reqId: id,
      tenantId,
      channelId,
      body: req,
    };
    let answer: Answer;
    try {
      pipeline.arrive(input);
      answer = await serveSendMessage(route, input);
    } catch (error) {
      if (error instanceof ClientGone) return;
      answer = failureAnswer(error, input, 'api');
    }
    // An error met after the client left has nobody to go to.
    if (answer.status >= 400 && res.destroyed) return;
    const headers: OutgoingHeaders = { ...answer.headers, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(answer.body) };
    pipeline.answer(input, headers, false);
    res.writeHead(answer.status, headers);
    res.end(answer.body);
    pipeline.complete(input, SEND_MESSAGE_ROUTE, answer.status, performance.now() - started);
  }
}
