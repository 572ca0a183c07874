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
import { list, ok } from './envelope.js';

const tags = ['conversations'];
const ROLES = ['admin', 'agent'] as const;

/** Contract 3.3: the agents' side of REST-channel conversations. */
export const channelConversationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  const { conversations } = channel;
  const base = '/api/tenants/:tenantId/conversations';

  app.get(
    base,
    { schema: { tags, summary: 'List conversations (waiting ones in queue order)', params: TenantParams, querystring: ConversationQuery, response: { 200: ApiEntities(ConversationView) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await conversations.list(request.params.tenantId, principal, request.query));
    },
  );

  app.get(`${base}/:id`, { schema: { tags, summary: 'Read a conversation', params: ConversationParams, response: { 200: ApiEntity(ConversationView) } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ROLES);
    return ok(await conversations.get(request.params.tenantId, request.params.id));
  });

  app.post(`${base}/:id/accept`, { schema: { tags, summary: 'Take a waiting conversation', params: ConversationParams, response: { 200: ApiEntity(ConversationView) } } }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.accept(request.params.tenantId, request.params.id, principal));
  });

  app.post(
    `${base}/:id/transfer`,
    { schema: { tags, summary: 'Hand a conversation to an agent or a skill group', params: ConversationParams, body: TransferRequest, response: { 200: ApiEntity(ConversationView) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.transfer(request.params.tenantId, request.params.id, principal, request.body));
    },
  );

  app.post(`${base}/:id/close`, { schema: { tags, summary: 'Close a conversation', params: ConversationParams, response: { 200: ApiEntity(ConversationView) } } }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.close(request.params.tenantId, request.params.id, principal));
  });

  app.get(
    `${base}/:id/messages`,
    { schema: { tags, summary: 'History: customer and agent messages with ext kept', params: ConversationParams, response: { 200: ApiEntities(MessageView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ROLES);
      return list(await conversations.history(request.params.tenantId, request.params.id));
    },
  );

  app.post(
    `${base}/:id/messages`,
    { schema: { tags, summary: 'Reply to the customer (pushed to the callback address)', params: ConversationParams, body: SendReplyRequest, response: { 200: ApiEntity(SendReplyResult) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.reply(request.params.tenantId, request.params.id, principal, request.body.bodies));
    },
  );
};
