import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ChannelParams, CustomerMessage, SendMessageResult } from '@parley/protocol';
import { Type } from 'typebox';
import { apiErrors, HMAC } from '../../openapi.js';
import { replyToSignedCall } from '../../send-message/fastify-reply.js';
import { SEND_MESSAGE_ROUTE, serveSendMessage, type SendMessageRoute } from '../../send-message/serve.js';

export interface ChannelIngestOptions {
  /** The same route the send-message lane serves: one ingest service, one set of limits. */
  route: SendMessageRoute;
}

/**
 * What the document shows of the input beyond what Fastify checks: the body (read raw by the
 * route, checked by the send-message validator) and both signature headers as required.
 */
const documentedInput = {
  body: CustomerMessage,
  headers: Type.Object({
    authorization: Type.String({ pattern: '^hmac [^:]+:.+$', description: '`hmac {clientId}:{signature}` (spec 2.2)' }),
    'x-auth-expires': Type.String({ pattern: '^-?\\d+$', description: 'When the signature expires, epoch milliseconds (0 or less: never); part of the signed text' }),
  }),
};

/**
 * The send-message API (contract 3.2) on Fastify: no bearer auth, and a body it leaves unread,
 * so that `serveSendMessage` (http/send-message/serve.ts) checks the headers first and the HMAC
 * over exactly the bytes received. Requests that arrive on a socket with decimal ids are served
 * by the lane in front of Fastify (http/send-message/lane.ts); this route documents the API in
 * OpenAPI and serves what reaches Fastify: `inject()` and a path whose ids need decoding.
 */
export const channelIngestRoutes: FastifyPluginAsyncTypebox<ChannelIngestOptions> = async (app, { route }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.post(
    SEND_MESSAGE_ROUTE,
    {
      config: { public: true, swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, ...documentedInput }, url }) },
      schema: {
        tags: ['rest-channel'],
        summary: 'Send a customer message (HMAC-signed by the customer server)',
        description:
          'Signed by the customer server with the association\'s Client ID and Secret (spec 2.2): `Authorization: hmac {clientId}:{signature}` and `X-Auth-Expires` are required, `Content-Type: application/json`. The signature covers the raw body bytes, so send exactly the bytes you signed.',
        params: ChannelParams,
        // Both headers are checked by the route itself (401 missing_authorization), not by a schema.
        headers: Type.Object({ authorization: Type.Optional(Type.String()), 'x-auth-expires': Type.Optional(Type.String()) }),
        security: HMAC,
        response: { 200: ApiEntity(SendMessageResult), ...apiErrors(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request, reply) => replyToSignedCall(request, reply, request.params, (input) => serveSendMessage(route, input)),
  );
};
