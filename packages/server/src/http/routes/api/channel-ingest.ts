import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ChannelParams, SendMessageResult } from '@parley/protocol';
import type { Redis } from 'ioredis';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { IngestService } from '../../../modules/channel/ingest.js';
import { registerRateLimit } from '../../plugins/rate-limit.js';

/** Spec: the send-message body is compact JSON; 64 KiB is far above any real message. */
export const SEND_MESSAGE_MAX_BYTES = 64 * 1024;

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The send-message API (contract 3.2) as its own encapsulated surface: no bearer auth, its own
 * body handling. Every content type is read as raw bytes, so the HMAC is checked over exactly
 * what was received before anything is parsed; the spec's `application/json; utf-8` is
 * accepted like any other `application/json` variant.
 */
export interface ChannelIngestOptions {
  ingest: IngestService;
  /** Requests per second per association (tenant and channel in the path). */
  rateLimitPerSecond: number;
  /** Shared counters when several instances run. */
  redis?: Redis | undefined;
  rateLimitNameSpace?: string;
}

export const channelIngestRoutes: FastifyPluginAsyncTypebox<ChannelIngestOptions> = async (app, { ingest, ...options }) => {
  // Per association, checked before the body is read: a customer's server in a loop cannot
  // starve the others.
  await registerRateLimit(app, {
    max: options.rateLimitPerSecond,
    timeWindowMs: 1000,
    redis: options.redis,
    nameSpace: options.rateLimitNameSpace ?? 'parley-rl-channel-',
    // The hot path answers customers' servers, which have no use for the counters.
    headers: false,
    keyGenerator: (request) => {
      const p = request.params as { tenantId?: unknown; channelId?: unknown };
      return `${String(p.tenantId ?? '')}/${String(p.channelId ?? '')}`;
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SEND_MESSAGE_MAX_BYTES }, (_request, body, done) => done(null, body));

  app.post(
    '/api/tenants/:tenantId/rest/channels/:channelId/messages',
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
      // Refuse unsigned requests before their body is read.
      onRequest: async (request) => {
        IngestService.assertAuthorizationPresent(headerValue(request.headers.authorization), headerValue(request.headers['x-auth-expires']));
      },
    },
    async (request) => {
      const contentType = request.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(contentType.trim())) throw new AppError('unsupported_media_type', { contentType: contentType || '(none)' });
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const result = await ingest.receive({
        tenantId: request.params.tenantId,
        channelId: request.params.channelId,
        path: (request.raw.url ?? request.url).split('?')[0] as string,
        authorization: headerValue(request.headers.authorization),
        expires: headerValue(request.headers['x-auth-expires']),
        rawBody,
      });
      return { status: 'OK' as const, entity: result };
    },
  );
};
