/**
 * The steps every HTTP request goes through, whichever transport serves it: Fastify, whose hooks
 * call them (plugins/pipeline.ts, plugins/errors.ts), and the send-message lane on the socket,
 * which calls them in order (send-message/lane.ts). A step added here is wired into both; the
 * table in http/README.md says where. In the order a request meets them:
 *
 *   1. request id         requestIdOf: the caller's `x-request-id` when it is a short token, else a
 *                         new one; every answer echoes it, error envelopes name it
 *   2. access log, in     logIncoming: "incoming request" (info; debug for routine reads, accessLevel)
 *   3. closing            HttpPipeline.arrive: once the app began to close, 503
 *                         service_unavailable with Retry-After: 1 and Connection: close
 *   4. body limit         Fastify's bodyLimit for parsed bodies; readBody for raw ones
 *   5. errors             failure: anything thrown as an AppError, logged (5xx at error with the
 *                         cause, others at info with code and status), in the surface's envelope
 *   6. security headers   securityHeaders: data answers get a policy that runs and frames nothing
 *                         (a page keeps its own), and every answer `nosniff`
 *   7. metrics            HttpPipeline.observe: requests and latency by method, route pattern, status
 *   8. access log, out    logCompleted: "request completed" with status and time (at the same level)
 */
import type { FastifyBaseLogger } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import { requestId } from '../kernel/ids.js';
import type { ClientAddressOf } from './client-address.js';
import { renderError, toAppError } from './failures.js';
import { CSRF_HEADER } from './plugins/session-cookie.js';
import type { Surface } from './surface.js';

export type Logger = FastifyBaseLogger;

/** Counts one answered request; the route is its pattern, so label cardinality stays bounded. */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

/** What the steps know of one request. A Fastify request is one as it is. */
export interface RequestFacts {
  /** Its id (step 1). */
  readonly id: string;
  /** When it arrived, on the app's clock. */
  readonly startedAt: number;
  /** The app's clock (kernel/clock.ts): error envelopes read the time on it. */
  readonly clock: Clock;
  readonly log: Logger;
  /**
   * The id again when `log` does not carry it: the lane writes on the app's logger rather than
   * build a child logger per request, as Fastify does.
   */
  readonly reqId?: string;
}

/** An answer as a transport writes it. */
export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** JSON text. */
  body: string;
}

/** Levels at which info lines are not written (their objects are then not built). */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal', 'silent']);
const logsInfo = (log: Logger): boolean => !QUIETER_THAN_INFO.has(log.level);
const logsDebug = (log: Logger): boolean => log.level === 'debug' || log.level === 'trace';

// 1. Request id ----------------------------------------------------------------------------

const VALID_REQUEST_ID = /^[\w.-]{1,64}$/;

/** A request's id: its `x-request-id` when that is a short token, else a new one. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : requestId();
}

// 2. and 8. Access log ---------------------------------------------------------------------

/** A request as the access log shows it; the logger's `req` serializer redacts credentials in the URL (kernel/logger.ts). */
export interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  /** The client's address (http/client-address.ts). */
  clientAddress?: string;
  headers?: IncomingHttpHeaders;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/** The level of a request's access-log lines. */
export type AccessLevel = 'info' | 'debug';

/** Probes and the metrics scrape: asked every few seconds by machines. */
const ROUTINE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Routine reads are logged at debug, everything else at info: GETs of the health probes and
 * metrics, of the console's files (`/console...`), and the console's own reads, which carry the
 * `X-Parley-CSRF` header its client sends on every call (its pages re-read every few seconds).
 * A change (POST, PUT, DELETE) is never routine, whoever makes it.
 */
export function accessLevel(req: LoggedRequest): AccessLevel {
  if (req.method !== 'GET' && req.method !== 'HEAD') return 'info';
  const url = req.url ?? '';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (ROUTINE_PATHS.has(path) || path === '/console' || path.startsWith('/console/')) return 'debug';
  return req.headers?.[CSRF_HEADER] === undefined ? 'info' : 'debug';
}

const logsAt = (log: Logger, level: AccessLevel): boolean => (level === 'info' ? logsInfo(log) : logsDebug(log));

export function logIncoming(log: Logger, req: LoggedRequest, reqId?: string, level: AccessLevel = accessLevel(req)): void {
  if (!logsAt(log, level)) return;
  log[level](reqId === undefined ? { req } : { reqId, req }, 'incoming request');
}

export function logCompleted(log: Logger, status: number, milliseconds: number, reqId?: string, level: AccessLevel = 'info'): void {
  if (!logsAt(log, level)) return;
  const res = { statusCode: status };
  log[level](reqId === undefined ? { res, responseTime: milliseconds } : { reqId, res, responseTime: milliseconds }, 'request completed');
}

// 3. Closing and 7. metrics: the state the steps share ---------------------------------------

export class HttpPipeline {
  #closing = false;

  /**
   * `clock` is the app's: requests' arrival times are read on it. `clientAddress` reads a
   * request's client (http/client-address.ts) for both transports.
   */
  constructor(
    readonly observe: ObserveRequest,
    readonly clock: Clock,
    readonly clientAddress: ClientAddressOf,
  ) {}

  /** From now on every request is answered 503 and its connection closed (the app is shutting down). */
  close(): void {
    this.#closing = true;
  }

  /** Throws the 503 of a request that arrives while the app closes. */
  arrive(): void {
    if (this.#closing) {
      throw new AppError('service_unavailable', { detail: 'the server is shutting down' }, { headers: { 'retry-after': '1', connection: 'close' } });
    }
  }
}

// 4. Body limit ----------------------------------------------------------------------------

/** The client went away before its body arrived: nothing to answer. */
export class ClientGone extends Error {}

const EMPTY = Buffer.alloc(0);

/**
 * The body of a raw request as bytes, at most `limit` of them (a declared length is checked
 * before anything is read): 413 `payload_too_large` past it, ClientGone when the client leaves first.
 */
export function readBody(source: Readable, limit: number, declaredLength: string | undefined): Promise<Buffer> {
  const tooLarge = () => new AppError('payload_too_large', { limit });
  if (Number(declaredLength ?? 0) > limit) return Promise.reject(tooLarge());
  if (source.readableEnded) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        source.pause();
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
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('close', onClose);
    // 'error' comes with 'close' when the client aborts; it must not go unhandled.
    source.on('error', () => undefined);
  });
}

// 5. Errors --------------------------------------------------------------------------------

/** The AppError of anything thrown while serving `request`, logged: 5xx at error with its cause, others at info. */
export function failure(error: unknown, request: RequestFacts, surface: Surface, bodyLimit?: number): AppError {
  const appError = toAppError(error, surface, bodyLimit);
  const { log, reqId } = request;
  if (appError.status >= 500) {
    log.error(reqId === undefined ? { err: error } : { reqId, err: error }, 'request failed');
  } else if (logsInfo(log)) {
    const fields = { code: appError.code, status: appError.status };
    log.info(reqId === undefined ? fields : { reqId, ...fields }, appError.message);
  }
  return appError;
}

/** `failure`, as the answer a raw transport writes: the error's headers and its envelope. */
export function failureAnswer(error: unknown, request: RequestFacts, surface: Surface): Answer {
  const appError = failure(error, request, surface);
  return { status: appError.status, headers: appError.headers, body: JSON.stringify(renderError(appError, request, surface)) };
}

// 6. Security headers ----------------------------------------------------------------------

/** The policy of data answers: a browser must never run or frame them, whatever they contain. */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The security headers of a data answer (also written by replies that bypass Fastify's hooks, e.g. event streams). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': DATA_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
});
const NOSNIFF: Readonly<Record<string, string>> = Object.freeze({ 'x-content-type-options': 'nosniff' });

/** The security headers an answer gets; one that serves a page (the console, the API docs, media) keeps its own policy. */
export function securityHeaders(hasOwnPolicy: boolean): Readonly<Record<string, string>> {
  return hasOwnPolicy ? NOSNIFF : SECURITY_HEADERS;
}
