/**
 * The steps every HTTP request goes through, whichever transport serves it, and the one list that
 * orders them: PIPELINE_STEPS, below. Fastify runs the list from its hooks (plugins/pipeline.ts),
 * the send-message lane from its handler (send-message/lane.ts); neither names a step, so a step
 * added to or moved in the list is added or moved on both. A step acts in up to three phases:
 *
 *   arrive     before the route, in list order; what a step throws is the request's answer
 *   answer     the step's headers on the answer about to be written, in reverse list order
 *   complete   once the answer is written, in reverse list order
 *
 * so the first step to see a request is the last to see its answer. The list, in order:
 *
 *   request id         answer: echoes the id (requestIdOf: the caller's `x-request-id` when it is a
 *                      short token, else a new one; made before the steps run, named by error envelopes)
 *   access log         arrive: "incoming request"; complete: "request completed" with status and
 *                      time (info; debug for routine reads, accessLevel)
 *   closing            arrive: once the app began to close, 503 service_unavailable with
 *                      Retry-After: 1 and Connection: close
 *   security headers   answer: data answers get a policy that runs and frames nothing (a page
 *                      keeps its own), and every answer `nosniff`
 *   metrics            complete: requests and latency by method, route pattern, status
 *
 * Around the list each transport calls two functions of this file: readBody, the body limit of raw
 * bodies (Fastify's bodyLimit for parsed ones), and failure, which turns anything thrown, by a step
 * or by the route, into the AppError it answers, logged (5xx at error with the cause, others at
 * info with code and status) and rendered in the surface's envelope.
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

/** What the steps know of one request. A Fastify request is one as it is (plugins/pipeline.ts). */
export interface RequestFacts extends LoggedRequest {
  /** Its id, made by requestIdOf. */
  readonly id: string;
  readonly method: string;
  /** The URL as received (path and query). */
  readonly url: string;
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

/** The headers of an answer about to be written, which the steps add to. */
export type OutgoingHeaders = Record<string, string | number>;

/** One step of the pipeline: what it does in each phase of a request (none, one or several). */
export interface PipelineStep {
  readonly name: string;
  /** Before the route; a throw is the request's answer. */
  readonly arrive?: (pipeline: HttpPipeline, request: RequestFacts) => void;
  /** Adds the step's headers; `ownPolicy`: the answer is a page that set its own Content-Security-Policy. */
  readonly answer?: (request: RequestFacts, headers: OutgoingHeaders, ownPolicy: boolean) => void;
  /** Once the answer is written: its route pattern, status and time taken. */
  readonly complete?: (pipeline: HttpPipeline, request: RequestFacts, route: string, status: number, milliseconds: number) => void;
}

/** Levels at which info lines are not written (their objects are then not built). */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal', 'silent']);
const logsInfo = (log: Logger): boolean => !QUIETER_THAN_INFO.has(log.level);
const logsDebug = (log: Logger): boolean => log.level === 'debug' || log.level === 'trace';

// Request id -------------------------------------------------------------------------------

const VALID_REQUEST_ID = /^[\w.-]{1,64}$/;

/** A request's id: its `x-request-id` when that is a short token, else a new one. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : requestId();
}

// Access log -------------------------------------------------------------------------------

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

/** "incoming request", at the request's access level. */
function logIncoming(request: RequestFacts): void {
  const { log, reqId } = request;
  const level = accessLevel(request);
  if (!logsAt(log, level)) return;
  log[level](reqId === undefined ? { req: request } : { reqId, req: request }, 'incoming request');
}

/** "request completed", with status and time, at the request's access level. */
function logCompleted(request: RequestFacts, status: number, milliseconds: number): void {
  const { log, reqId } = request;
  const level = accessLevel(request);
  if (!logsAt(log, level)) return;
  const res = { statusCode: status };
  log[level](reqId === undefined ? { res, responseTime: milliseconds } : { reqId, res, responseTime: milliseconds }, 'request completed');
}

// Closing ----------------------------------------------------------------------------------

function closingError(): AppError {
  return new AppError('service_unavailable', { detail: 'the server is shutting down' }, { headers: { 'retry-after': '1', connection: 'close' } });
}

// Security headers -------------------------------------------------------------------------

/** The policy of data answers: a browser must never run or frame them, whatever they contain. */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The security headers of a data answer, for replies that bypass the pipeline (e.g. event streams). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': DATA_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
});

// The list ---------------------------------------------------------------------------------

/** The steps, in the order a request meets them (see the top of this file). */
export const PIPELINE_STEPS: readonly PipelineStep[] = Object.freeze([
  {
    name: 'request id',
    answer: (request, headers) => {
      headers['x-request-id'] = request.id;
    },
  },
  {
    name: 'access log',
    arrive: (_pipeline, request) => logIncoming(request),
    complete: (_pipeline, request, _route, status, milliseconds) => logCompleted(request, status, milliseconds),
  },
  {
    name: 'closing',
    arrive: (pipeline) => {
      if (pipeline.closing) throw closingError();
    },
  },
  {
    name: 'security headers',
    answer: (_request, headers, ownPolicy) => {
      if (!ownPolicy) headers['content-security-policy'] = DATA_CONTENT_SECURITY_POLICY;
      headers['x-content-type-options'] = 'nosniff';
    },
  },
  {
    name: 'metrics',
    complete: (pipeline, request, route, status, milliseconds) => pipeline.observe(request.method, route, status, milliseconds / 1000),
  },
] satisfies PipelineStep[]);

type Arrive = NonNullable<PipelineStep['arrive']>;
type AnswerHeaders = NonNullable<PipelineStep['answer']>;
type Complete = NonNullable<PipelineStep['complete']>;

/**
 * The list as the transports run it, with the state its steps share (closing, metrics) and the
 * facts both transports read of a request (the app's clock, the client's address). Each phase is
 * a plain array of the steps' functions, taken from the list once: running one allocates nothing.
 */
export class HttpPipeline {
  #closing = false;
  readonly #arrive: readonly Arrive[];
  readonly #answer: readonly AnswerHeaders[];
  readonly #complete: readonly Complete[];

  /**
   * `clock` is the app's: requests' arrival times are read on it. `clientAddress` reads a
   * request's client (http/client-address.ts) for both transports.
   */
  constructor(
    readonly observe: ObserveRequest,
    readonly clock: Clock,
    readonly clientAddress: ClientAddressOf,
    readonly steps: readonly PipelineStep[] = PIPELINE_STEPS,
  ) {
    this.#arrive = steps.flatMap((s) => (s.arrive ? [s.arrive] : []));
    this.#answer = steps.flatMap((s) => (s.answer ? [s.answer] : [])).reverse();
    this.#complete = steps.flatMap((s) => (s.complete ? [s.complete] : [])).reverse();
  }

  /** Whether the app began to close: from then on every request is answered 503 and its connection closed. */
  get closing(): boolean {
    return this.#closing;
  }

  close(): void {
    this.#closing = true;
  }

  /** The arrive phase: throws what the request is to be answered with instead of its route's answer. */
  arrive(request: RequestFacts): void {
    const steps = this.#arrive;
    for (let i = 0; i < steps.length; i++) steps[i]!(this, request);
  }

  /** The answer phase: the steps' headers, added to `headers`. */
  answer(request: RequestFacts, headers: OutgoingHeaders, ownPolicy: boolean): void {
    const steps = this.#answer;
    for (let i = 0; i < steps.length; i++) steps[i]!(request, headers, ownPolicy);
  }

  /** The complete phase, once the answer is written. */
  complete(request: RequestFacts, route: string, status: number, milliseconds: number): void {
    const steps = this.#complete;
    for (let i = 0; i < steps.length; i++) steps[i]!(this, request, route, status, milliseconds);
  }
}

// Body limit -------------------------------------------------------------------------------
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

// Errors -----------------------------------------------------------------------------------

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
