import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ChannelParams, CustomerTypingRequest, RatingRequest, RatingView, ReceiptsRequest, ReceiptsResult } from '@parley/protocol';
import { Type, type TSchema } from 'typebox';
import type { CustomerCalls } from '../../../modules/channel/customer-calls.js';
import { apiErrors, HMAC } from '../../openapi.js';
import { replyToSignedCall } from '../../send-message/fastify-reply.js';
import { serveSignedCall, type SendMessageRoute } from '../../send-message/serve.js';

export interface CustomerCallRoutesOptions {
  /** The send-message API's limits: the calls share its per-association rate and failure counts. */
  route: SendMessageRoute;
  calls: CustomerCalls;
}

const signedHeaders = Type.Object({
  authorization: Type.String({ pattern: '^hmac [^:]+:.+$', description: '`hmac {clientId}:{signature}`, signed as the send-message API (spec 5.1) over this path' }),
  'x-auth-expires': Type.String({ pattern: '^-?\\d+$', description: 'When the signature expires, epoch milliseconds (0 or less: never)' }),
});

const TypingAnswer = Type.Object({ conversation_id: Type.Integer() });

/**
 * The customer's server's signed calls of contract 6.4, beside the send-message API and signed
 * exactly as it is (the HMAC over the raw bytes and this path): receipts, typing, ratings.
 */
export const channelCustomerCallRoutes: FastifyPluginAsyncTypebox<CustomerCallRoutesOptions> = async (app, { route, calls }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const signed = (
    suffix: string,
    summary: string,
    description: string,
    body: TSchema,
    answer: TSchema,
    errors: number[],
    handle: (calls: CustomerCalls) => Parameters<typeof serveSignedCall>[2],
  ) =>
    app.post(
      `/api/tenants/:tenantId/rest/channels/:channelId/${suffix}`,
      {
        config: { public: true, swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body, headers: signedHeaders }, url }) },
        schema: {
          tags: ['rest-channel'],
          summary,
          description: `${description} Signed as the send-message API (the HMAC over the raw body and this path); the same per-association rate.`,
          params: ChannelParams,
          headers: Type.Object({ authorization: Type.Optional(Type.String()), 'x-auth-expires': Type.Optional(Type.String()) }),
          security: HMAC,
          response: { 200: ApiEntity(answer), ...apiErrors(...errors) },
        },
      },
      async (request, reply) => replyToSignedCall(request, reply, request.params, (input) => serveSignedCall(route, input, handle(calls))),
    );

  signed(
    'receipts',
    "Report agent messages delivered to, or read by, the customer",
    '`to` is the customer id; `msg_ids` the agent messages (`ext.msg_id` of the pushes). A receipt only moves forward (`delivered`, then `read`).',
    ReceiptsRequest,
    ReceiptsResult,
    [400, 401, 403, 404, 413, 415, 429],
    (c) => (req, charge) => c.receipts(req, charge),
  );
  signed(
    'typing',
    'Tell the agent the customer is typing',
    "Shown live to the agents who see the customer's open conversation; 404 without one.",
    CustomerTypingRequest,
    TypingAnswer,
    [400, 401, 403, 404, 413, 415, 429],
    (c) => (req, charge) => c.typing(req, charge),
  );
  signed(
    'ratings',
    "Send the customer's satisfaction rating (1-5) of a closed conversation",
    '409 `conversation_state` unless the conversation is the customer\'s, closed, and was invited (`csat_invitation`); one rating per conversation. Pushed back as `csat_submitted` when the association lists it.',
    RatingRequest,
    RatingView,
    [400, 401, 403, 404, 409, 413, 415, 429],
    (c) => (req, charge) => c.rate(req, charge),
  );
};
