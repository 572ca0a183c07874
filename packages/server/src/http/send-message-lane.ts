/**
 * The send-message API on a socket, served in front of Fastify.
 *
 * Customers' servers post every message here, so this one route is the hot path of Area A.
 * Fastify's per-request pipeline (request and reply objects, hook chains, content-type parser,
 * schema validation of params and headers, serializer) cost about a quarter of the CPU of a
 * request on the benchmark machine. The lane does the same work in plain
 * `node:http`:
 *
 *   POST /api/tenants/{t}/rest/channels/{c}/messages, t and c decimal ids  (else: Fastify)
 *     -> shutting down?            503 service_unavailable, Connection: close
 *     -> IP's failures, association's rate
 *                                  429 rate_limited + Retry-After      (same limiters as the route;
 *                                                                       looked at, not charged)
 *     -> Authorization headers     401 missing_authorization           (before the body is read)
 *     -> body > 64 KiB             413 payload_too_large, Connection: close
 *     -> Content-Type              415 unsupported_media_type
 *     -> IngestService.receive     its 4xx/5xx (the association is charged once the signature
 *                                  holds), or 200 {status: OK, entity}
 *   an authentication failure (401) is counted against the caller's IP at the association.
 *
 * Answers carry `x-request-id`, errors the `/api` envelope (plugins/errors.ts), and every answer
 * is counted in the HTTP metrics under the route's pattern, as Fastify's answers are.
 * Everything else, including this path with ids that need decoding, goes to Fastify, whose route
 * makes the same checks (routes/api/channel-ingest.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../kernel/errors.js';
import type { ChargeAssociation, IngestService } from '../modules/channel/ingest.js';
import type { GuardedLimits } from './auth-failures.js';
import { renderError, toAppError } from './plugins/errors.js';
import type { ObserveRequest } from './plugins/metrics.js';
import { DATA_CONTENT_SECURITY_POLICY } from './plugins/security-headers.js';
import {
  admitSendMessage,
  chargeAfterSignature,
  noteSendMessageFailure,
  SEND_MESSAGE_MAX_BYTES,
  SEND_MESSAGE_ROUTE,
  sendMessageRequest,
} from './routes/api/channel-ingest.js';

const PATH = /^\/api\/tenants\/(\d{1,15})\/rest\/channels\/(\d{1,15})\/messages(?:\?|$)/;
const JSON_TYPE = 'application/json; charset=utf-8';
/** Levels at which info lines are not written (their objects are then not built). */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

export interface SendMessageLaneOptions {
  ingest: IngestService;
  /** The association's rate and the failures per IP, shared with the Fastify route. */
  limits: GuardedLimits;
  observe: ObserveRequest;
  log: FastifyBaseLogger;
  /** The id of a request: its valid `x-request-id`, or a new one (as Fastify's genReqId). */
  requestId: (req: IncomingMessage) => string;
  /** The client's address for per-IP failure counts (as Fastify's `request.ip`). */
  clientAddress: (req: IncomingMessage) => string;
}

/** The client went away before its body arrived: nothing to answer. */
class ClientGone extends Error {}

export class SendMessageLane {
  #closing = false;
  readonly #charge: ChargeAssociation;

  constructor(private readonly options: SendMessageLaneOptions) {
    this.#charge = chargeAfterSignature(options.limits);
  }

  /** From now on, answer 503 and close the connection (the app is shutting down). */
  close(): void {
    this.#closing = true;
  }

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

  async #serve(req: IncomingMessage, res: ServerResponse, url: string, tenantId: number, channelId: number): Promise<void> {
    const startedAt = Date.now();
    const started = performance.now();
    const id = this.options.requestId(req);
    const log = this.options.log;
    let status = 200;
    let headers: Record<string, string> = {};
    let body: string;
    try {
      if (this.#closing) {
        throw new AppError('service_unavailable', { detail: 'the server is shutting down' }, { headers: { 'retry-after': '1', connection: 'close' } });
      }
      const admission = admitSendMessage(this.options.limits, tenantId, channelId, this.options.clientAddress(req), req.headers);
      if (admission) await admission;
      const rawBody = await readBody(req);
      const result = await this.options.ingest.receive(sendMessageRequest(tenantId, channelId, url, req.headers, rawBody), this.#charge);
      body = JSON.stringify({ status: 'OK', entity: result });
    } catch (error) {
      if (error instanceof ClientGone || res.destroyed) return;
      noteSendMessageFailure(this.options.limits, tenantId, channelId, this.options.clientAddress(req), error);
      const appError = toAppError(error, 'api');
      if (appError.status >= 500) log.error({ reqId: id, err: error }, 'request failed');
      else if (!QUIETER_THAN_INFO.has(log.level)) log.info({ reqId: id, code: appError.code, status: appError.status }, appError.message);
      status = appError.status;
      headers = appError.headers;
      // A body left unread is not worth reading; the client opens a new connection.
      if (status === 413) headers = { ...headers, connection: 'close' };
      body = JSON.stringify(renderError(appError, { id, startedAt }, 'api'));
    }
    res.writeHead(status, {
      ...headers,
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(body),
      'x-request-id': id,
      'content-security-policy': DATA_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
    res.end(body);
    const seconds = (performance.now() - started) / 1000;
    this.options.observe('POST', SEND_MESSAGE_ROUTE, status, seconds);
    if (!QUIETER_THAN_INFO.has(log.level)) {
      // The logger's `req` serializer redacts credentials in the URL (kernel/logger.ts).
      log.info({ reqId: id, req: { method: 'POST', url }, res: { statusCode: status }, responseTime: seconds * 1000 }, 'request completed');
    }
  }
}

/** The body as bytes, at most SEND_MESSAGE_MAX_BYTES of it (a declared length is checked first). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const limit = SEND_MESSAGE_MAX_BYTES;
  const tooLarge = () => new AppError('payload_too_large', { limit });
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onClose = () => {
      stop();
      reject(new ClientGone());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    // 'error' comes with 'close' when the client aborts; it must not go unhandled.
    req.on('error', () => undefined);
  });
}
