/**
 * The send-message API (contract 3.2) over any transport: `serveSendMessage` takes a request's
 * ids, URL, headers, body stream and client address and answers status, headers and JSON text.
 * The lane on the socket (lane.ts) and Fastify's route (routes/api/channel-ingest.ts) both call it.
 *
 *   IP's failures, association's rate   429 rate_limited + Retry-After   (looked at, not charged)
 *   -> Authorization, X-Auth-Expires    401 missing_authorization        (before the body is read)
 *   -> body over 64 KiB                 413 payload_too_large, Connection: close
 *   -> Content-Type                     415 unsupported_media_type
 *   -> IngestService.receive            its 4xx/5xx (the association is charged once the
 *                                       signature holds), or 200 {status: OK, entity}
 *   an authentication failure (401) is counted against the caller's IP at the association.
 *
 * The association's window is only looked at before the body is read: the HMAC covers the body,
 * so a request is charged once its signature holds. Failed authentications are counted per IP
 * and association, never in the association's window, so a stranger's flood of bad signatures
 * cannot use up the real client's budget.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../../kernel/errors.js';
import type { IngestService, SendMessageRequest } from '../../modules/channel/ingest.js';
import { readCredentials, type ChargeAssociation } from '../../modules/channel/send-message-signature.js';
import { failureKey, noteFailure, tooMany, type GuardedLimits } from '../auth-failures.js';
import { ClientGone, failureAnswer, readBody, type Answer, type RequestFacts } from '../pipeline.js';

/** Spec: the send-message body is compact JSON; 64 KiB is far above any real message. */
export const SEND_MESSAGE_MAX_BYTES = 64 * 1024;
export const SEND_MESSAGE_ROUTE = '/api/tenants/:tenantId/rest/channels/:channelId/messages';

/** What serves the route: the ingest service and the limits both transports share. */
export interface SendMessageRoute {
  readonly ingest: IngestService;
  /** Requests per association (tenant and channel in the path) and failures per IP. */
  readonly limits: GuardedLimits;
  /** The association's charge, made by the ingest service once the signature holds. */
  readonly charge: ChargeAssociation;
}

export function sendMessageRoute(ingest: IngestService, limits: GuardedLimits): SendMessageRoute {
  const own = limits.own;
  return { ingest, limits, charge: async (tenantId, channelId) => own.take(`${tenantId}/${channelId}`) };
}

/** One send-message request, whichever transport carried it. */
export interface SendMessageInput extends RequestFacts {
  readonly tenantId: number;
  readonly channelId: number;
  /** The URL as received (path and query); the signature covers its path. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body, unread: read here once the headers pass, at most SEND_MESSAGE_MAX_BYTES of it. */
  readonly body: Readable;
  /** The client's address (http/client-address.ts), for the per-IP failure counts. */
  readonly clientAddress: string;
}

type Credentials = NonNullable<SendMessageRequest['credentials']>;

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The answer to one send-message request: 200 with the envelope, or an error envelope (logged by
 * the pipeline's errors step). Rejects only with ClientGone, when there is nobody to answer.
 */
export function serveSendMessage(route: SendMessageRoute, input: SendMessageInput): Promise<Answer> {
  return serveSignedCall(route, input, (request, charge) => route.ingest.receive(request, charge));
}

/**
 * Any call signed as the send-message API (the customer-side calls of contract 6.4 too): the same
 * admission, body limit, Content-Type, failure counting and envelope; `handle` verifies the
 * signature (SendMessageSignature.verify) and answers the entity.
 */
export async function serveSignedCall(
  route: SendMessageRoute,
  input: SendMessageInput,
  handle: (request: SendMessageRequest, charge: ChargeAssociation) => Promise<unknown>,
): Promise<Answer> {
  try {
    const admitted = admitSendMessage(route.limits, input);
    const credentials = admitted instanceof Promise ? await admitted : admitted;
    const rawBody = await readBody(input.body, SEND_MESSAGE_MAX_BYTES, input.headers['content-length']);
    const result = await handle(sendMessageRequest(input, rawBody, credentials), route.charge);
    return { status: 200, headers: NO_HEADERS, body: JSON.stringify({ status: 'OK', entity: result }) };
  } catch (error) {
    if (error instanceof ClientGone) throw error;
    noteSendMessageFailure(route.limits, input, error);
    const answer = failureAnswer(error, input, 'api');
    // A body left unread is not worth reading; the client opens a new connection.
    return answer.status === 413 ? { ...answer, headers: { ...answer.headers, connection: 'close' } } : answer;
  }
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The checks made before the body is read, in order: the caller's IP has not failed too often at
 * this association, the association has room left in its window (a customer's server in a loop
 * cannot starve the others), then the Authorization and X-Auth-Expires headers, parsed here once.
 * Synchronous when the limiters are (one process); a promise when they ask Redis.
 */
function admitSendMessage(limits: GuardedLimits, input: SendMessageInput): Credentials | Promise<Credentials> {
  const key = `${input.tenantId}/${input.channelId}`;
  const failed = limits.failures.peek(failureKey(input.clientAddress, key));
  const full = limits.own.peek(key);
  if (typeof failed === 'number' && typeof full === 'number') return admitted(failed || full, input.headers);
  return Promise.all([failed, full]).then(([f, a]) => admitted(f || a, input.headers));
}

function admitted(retryAfter: number, headers: IncomingHttpHeaders): Credentials {
  if (retryAfter > 0) throw tooMany('rate_limited', retryAfter);
  return readCredentials(headerValue(headers.authorization), headerValue(headers['x-auth-expires']));
}

/** Answers of a request that did not prove it holds the association's secret. */
const SEND_MESSAGE_AUTH_FAILURES = new Set(['missing_authorization', 'invalid_client', 'invalid_signature']);

/** Counts `error` against the caller's IP at the association when it is an authentication failure. */
function noteSendMessageFailure(limits: GuardedLimits, input: SendMessageInput, error: unknown): void {
  if (error instanceof AppError && SEND_MESSAGE_AUTH_FAILURES.has(error.code)) noteFailure(limits, input.clientAddress, `${input.tenantId}/${input.channelId}`);
}

/**
 * The request the ingest service receives, once the body is read: any `application/json`
 * variant (the spec's `application/json; utf-8` too) and nothing else. The signed path is the
 * URL exactly as received, without its query string.
 */
function sendMessageRequest(input: SendMessageInput, rawBody: Buffer, credentials: Credentials): SendMessageRequest {
  const headers = input.headers;
  const contentType = headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType.trim())) throw new AppError('unsupported_media_type', { contentType: contentType || '(none)' });
  const url = input.url;
  const query = url.indexOf('?');
  return {
    tenantId: input.tenantId,
    channelId: input.channelId,
    path: query === -1 ? url : url.slice(0, query),
    authorization: headerValue(headers.authorization),
    expires: headerValue(headers['x-auth-expires']),
    rawBody,
    credentials,
  };
}
