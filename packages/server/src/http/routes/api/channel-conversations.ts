import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiEntities,
  ApiEntity,
  ConversationParams,
  ConversationQuery,
  ConversationView,
  MessageView,
  SendReplyRequest,
  SendReplyResult,
  TenantParams,
  TransferRequest,
} from '@parley/protocol';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

const tags = ['conversations'];
const ROLES = ['admin', 'agent'] as const;
const security = API_BEARER;
const errors = apiErrors(400, 401, 403, 404, 429);
/** Changes refused in the conversation's present state answer 409 `conversation_state`. */
const changeErrors = apiErrors(400, 401, 403, 404, 409, 429);

type ApiApp = Parameters<FastifyPluginAsyncTypebox>[0];
type Conversations = ChannelModule['conversations'];
const base = '/api/tenants/:tenantId/conversations';

/** Contract 3.3: the agents' side of REST-channel conversations. */
export const channelConversationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  readRoutes(app, channel.conversations);
  changeRoutes(app, channel.conversations);
};

/** Lists, one conversation, its history. */
function readRoutes(app: ApiApp, conversations: Conversations): void {
  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List conversations (waiting ones in queue order)',
        security,
        params: TenantParams,
        querystring: ConversationQuery,
        response: { 200: ApiEntities(ConversationView), ...errors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await conversations.list(request.params.tenantId, principal, request.query));
    },
  );

  app.get(`${base}/:id`, { schema: { tags, summary: 'Read a conversation', security, params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...errors } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ROLES);
    return ok(await conversations.get(request.params.tenantId, request.params.id));
  });

  app.get(
    `${base}/:id/messages`,
    { schema: { tags, summary: 'History: customer and agent messages with ext kept', security, params: ConversationParams, response: { 200: ApiEntities(MessageView), ...errors } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ROLES);
      return list(await conversations.history(request.params.tenantId, request.params.id));
    },
  );
}

/** Taking, handing over, closing and replying. */
function changeRoutes(app: ApiApp, conversations: Conversations): void {
  const noBody = { 'x-no-body': true };
  app.post(`${base}/:id/accept`, { schema: { tags, summary: 'Take a waiting conversation', security, ...noBody, params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...changeErrors } } }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.accept(request.params.tenantId, request.params.id, principal));
  });

  app.post(
    `${base}/:id/transfer`,
    {
      schema: {
        tags,
        summary: 'Hand a conversation to an agent or a skill group',
        security,
        params: ConversationParams,
        body: TransferRequest,
        response: { 200: ApiEntity(ConversationView), ...changeErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.transfer(request.params.tenantId, request.params.id, principal, request.body));
    },
  );

  app.post(`${base}/:id/close`, { schema: { tags, summary: 'Close a conversation', security, ...noBody, params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...changeErrors } } }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.close(request.params.tenantId, request.params.id, principal));
  });

  app.post(
    `${base}/:id/messages`,
    {
      schema: {
        tags,
        summary: 'Reply to the customer (pushed to the callback address)',
        security,
        params: ConversationParams,
        body: SendReplyRequest,
        response: { 200: ApiEntity(SendReplyResult), ...changeErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.reply(request.params.tenantId, request.params.id, principal, request.body.bodies));
    },
  );
}
