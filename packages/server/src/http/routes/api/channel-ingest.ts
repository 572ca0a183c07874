import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ChannelParams, SendMessageResult } from '@parley/protocol';
import type { IncomingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { IngestService, type SendMessageRequest } from '../../../modules/channel/ingest.js';
import type { FixedWindowLimiter } from '../../fixed-window.js';

/** Spec: the send-message body is compact JSON; 64 KiB is far above any real message. */
export const SEND_MESSAGE_MAX_BYTES = 64 * 1024;
export const SEND_MESSAGE_ROUTE = '/api/tenants/:tenantId/rest/channels/:channelId/messages';

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The checks made before the body is read, in order: the association's rate (a customer's server
 * in a loop cannot starve the others), then the Authorization and X-Auth-Expires headers.
 * Synchronous when the limiter is (one process); a promise when it asks Redis.
 */
export function admitSendMessage(limiter: FixedWindowLimiter, tenantId: number, channelId: number, headers: IncomingHttpHeaders): void | Promise<void> {
  const wait = limiter.take(`${tenantId}/${channelId}`);
  if (typeof wait === 'number') return admitted(wait, headers);
  return wait.then((w) => admitted(w, headers));
}

function admitted(retryAfter: number, headers: IncomingHttpHeaders): void {
  if (retryAfter > 0) throw new AppError('rate_limited', { retryAfter }, { headers: { 'retry-after': String(retryAfter) } });
  IngestService.assertAuthorizationPresent(headerValue(headers.authorization), headerValue(headers['x-auth-expires']));
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
  /** Requests per association (tenant and channel in the path), shared with the socket lane. */
  limiter: FixedWindowLimiter;
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
export const channelIngestRoutes: FastifyPluginAsyncTypebox<ChannelIngestOptions> = async (app, { ingest, limiter }) => {
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
        await admitSendMessage(limiter, Number(params.tenantId), Number(params.channelId), request.headers);
      },
    },
    async (request) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const url = request.raw.url ?? request.url;
      const result = await ingest.receive(sendMessageRequest(request.params.tenantId, request.params.channelId, url, request.headers, rawBody));
      return { status: 'OK' as const, entity: result };
    },
  );
};
