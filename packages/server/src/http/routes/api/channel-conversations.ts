import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiEntities,
  ApiEntity,
  ApiErrorSchema,
  ConversationPage,
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
const security = [{ bearer: [] }];
const ROLES = ['admin', 'agent'] as const;
/** The error envelope for each listed status a route can answer. */
const failures = <const S extends readonly number[]>(...statuses: S) =>
  Object.fromEntries(statuses.map((s) => [s, ApiErrorSchema])) as { [K in S[number]]: typeof ApiErrorSchema };

const listSchema = {
  tags,
  security,
  summary: 'List conversations: waiting ones in queue order, others most recent first; filters and cursor pages',
  description:
    'An agent sees the conversations assigned to them and those of their skill groups; a tenant admin all of the tenant. ' +
    '`from`/`to` bound `updatedAt` (inclusive); `cursor` is the previous page\'s, null on the last page.',
  params: TenantParams,
  querystring: ConversationQuery,
  response: { 200: ConversationPage, ...failures(400, 401, 403) },
};

const acceptSchema = {
  tags,
  security,
  summary: 'Take a waiting conversation of one of your skill groups (a tenant admin: any)',
  params: ConversationParams,
  response: { 200: ApiEntity(ConversationView), ...failures(400, 401, 403, 404, 409) },
};

const replySchema = {
  tags,
  security,
  summary: 'Reply to the customer (pushed to the callback address)',
  description: '409 `conversation_state` unless the conversation is accepted and open; 403 when another agent holds it.',
  params: ConversationParams,
  body: SendReplyRequest,
  response: { 200: ApiEntity(SendReplyResult), ...failures(400, 401, 403, 404, 409) },
};

/** Contract 3.3 and 6.3: the agents' side of REST-channel conversations. */
export const channelConversationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  const { conversations } = channel;
  const base = '/api/tenants/:tenantId/conversations';

  app.get(
    base,
    { schema: listSchema },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      const page = await conversations.list(request.params.tenantId, principal, request.query);
      return { ...list(page.entities), cursor: page.cursor };
    },
  );

  app.get(
    `${base}/:id`,
    { schema: { tags, security, summary: 'Read a conversation', params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...failures(400, 401, 403, 404) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.get(request.params.tenantId, request.params.id, principal));
    },
  );

  app.post(
    `${base}/:id/accept`,
    { schema: acceptSchema },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.accept(request.params.tenantId, request.params.id, principal));
    },
  );

  app.post(
    `${base}/:id/transfer`,
    { schema: { tags, security, summary: 'Hand a conversation to an agent or a skill group', params: ConversationParams, body: TransferRequest, response: { 200: ApiEntity(ConversationView), ...failures(400, 401, 403, 404, 409) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.transfer(request.params.tenantId, request.params.id, principal, request.body));
    },
  );

  app.post(`${base}/:id/close`, { schema: { tags, security, summary: 'Close a conversation', params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...failures(400, 401, 403, 404, 409) } } }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.close(request.params.tenantId, request.params.id, principal));
  });

  app.get(
    `${base}/:id/messages`,
    { schema: { tags, security, summary: 'History: customer and agent messages with ext kept', params: ConversationParams, response: { 200: ApiEntities(MessageView), ...failures(400, 401, 403, 404) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await conversations.history(request.params.tenantId, request.params.id, principal));
    },
  );

  app.post(
    `${base}/:id/messages`,
    { schema: replySchema },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.reply(request.params.tenantId, request.params.id, principal, request.body.bodies));
    },
  );
};
