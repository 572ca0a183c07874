import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ChannelParams, SendMessageResult } from '@parley/protocol';
import type { IncomingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { IngestService, type ChargeAssociation, type SendMessageRequest } from '../../../modules/channel/ingest.js';
import { failureKey, noteFailure, tooMany, type GuardedLimits } from '../../auth-failures.js';

/** Spec: the send-message body is compact JSON; 64 KiB is far above any real message. */
export const SEND_MESSAGE_MAX_BYTES = 64 * 1024;
export const SEND_MESSAGE_ROUTE = '/api/tenants/:tenantId/rest/channels/:channelId/messages';

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The checks made before the body is read, in order: the caller's IP has not failed too often at
 * this association, the association has room left in its window (a customer's server in a loop
 * cannot starve the others), then the Authorization and X-Auth-Expires headers.
 *
 * The association's window is only looked at here, not charged: the HMAC covers the body, so a
 * request is charged once its signature holds (`chargeAfterSignature`). Failed authentications
 * are counted per IP and association (`noteSendMessageFailure`), never in the association's
 * window, so a stranger's flood of bad signatures cannot use up the real client's budget.
 * Synchronous when the limiters are (one process); a promise when they ask Redis.
 */
export function admitSendMessage(limits: GuardedLimits, tenantId: number, channelId: number, ip: string, headers: IncomingHttpHeaders): void | Promise<void> {
  const key = `${tenantId}/${channelId}`;
  const failed = limits.failures.peek(failureKey(ip, key));
  const full = limits.own.peek(key);
  if (typeof failed === 'number' && typeof full === 'number') return admitted(failed || full, headers);
  return Promise.all([failed, full]).then(([f, a]) => admitted(f || a, headers));
}

function admitted(retryAfter: number, headers: IncomingHttpHeaders): void {
  if (retryAfter > 0) throw tooMany('rate_limited', retryAfter);
  IngestService.assertAuthorizationPresent(headerValue(headers.authorization), headerValue(headers['x-auth-expires']));
}

/** The association's charge, made by the ingest service once the signature holds. */
export function chargeAfterSignature(limits: GuardedLimits): ChargeAssociation {
  const own = limits.own;
  return (tenantId, channelId) => own.take(`${tenantId}/${channelId}`);
}

/** Answers of a request that did not prove it holds the association's secret. */
const SEND_MESSAGE_AUTH_FAILURES = new Set(['missing_authorization', 'invalid_client', 'invalid_signature']);

/** Counts `error` against the caller's IP at the association when it is an authentication failure. */
export function noteSendMessageFailure(limits: GuardedLimits, tenantId: number, channelId: number, ip: string, error: unknown): void {
  if (error instanceof AppError && SEND_MESSAGE_AUTH_FAILURES.has(error.code)) noteFailure(limits, ip, `${tenantId}/${channelId}`);
}

/**
 * The request the ingest service receives, once the body is read: any `application/json`
 * variant (the spec's `application/json; utf-8` too) and nothing else. The signed path is the
 * URL exactly as received, without its query string.
 */
export function sendMessageRequest(tenantId: number, channelId: number, url: string, headers: IncomingHttpHeaders, rawBody: Buffer): SendMessageRequest {
  const contentType = headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType.trim())) throw new AppError('unsupported_media_type', { contentType: contentType || '(none)' });
  const query = url.indexOf('?');
  return {
    tenantId,
    channelId,
    path: query === -1 ? url : url.slice(0, query),
    authorization: headerValue(headers.authorization),
    expires: headerValue(headers['x-auth-expires']),
    rawBody,
  };
}

export interface ChannelIngestOptions {
  ingest: IngestService;
  /** Requests per association (tenant and channel in the path) and failures per IP, shared with the socket lane. */
  limits: GuardedLimits;
}

/**
 * The send-message API (contract 3.2) as its own encapsulated surface: no bearer auth, its own
 * body handling. Every content type is read as raw bytes, so the HMAC is checked over exactly
 * what was received before anything is parsed.
 *
 * Requests that arrive on a socket are served by the lane in front of Fastify
 * (http/send-message-lane.ts) with the same checks; this route documents the API in OpenAPI and
 * serves what reaches Fastify: `inject()` and a path whose ids need decoding.
 */
export const channelIngestRoutes: FastifyPluginAsyncTypebox<ChannelIngestOptions> = async (app, { ingest, limits }) => {
  const charge = chargeAfterSignature(limits);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SEND_MESSAGE_MAX_BYTES }, (_request, body, done) => done(null, body));

  app.post(
    SEND_MESSAGE_ROUTE,
    {
      bodyLimit: SEND_MESSAGE_MAX_BYTES,
      config: { public: true },
      schema: {
        tags: ['rest-channel'],
        summary: 'Send a customer message (HMAC-signed by the customer server)',
        description: 'Headers: `Authorization: hmac {clientId}:{signature}`, `X-Auth-Expires`, `Content-Type: application/json`. Body: spec 2.2.',
        params: ChannelParams,
        headers: Type.Object({ authorization: Type.Optional(Type.String()), 'x-auth-expires': Type.Optional(Type.String()) }),
        security: [],
        response: { 200: ApiEntity(SendMessageResult) },
      },
      // Rate and headers are checked before the body is read (params are not coerced yet here).
      onRequest: async (request) => {
        const params = request.params as { tenantId?: unknown; channelId?: unknown };
        const tenantId = Number(params.tenantId);
        const channelId = Number(params.channelId);
        try {
          await admitSendMessage(limits, tenantId, channelId, request.ip, request.headers);
        } catch (error) {
          noteSendMessageFailure(limits, tenantId, channelId, request.ip, error);
          throw error;
        }
      },
    },
    async (request) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const url = request.raw.url ?? request.url;
      const { tenantId, channelId } = request.params;
      try {
        const result = await ingest.receive(sendMessageRequest(tenantId, channelId, url, request.headers, rawBody), charge);
        return { status: 'OK' as const, entity: result };
      } catch (error) {
        noteSendMessageFailure(limits, tenantId, channelId, request.ip, error);
        throw error;
      }
    },
  );
};
