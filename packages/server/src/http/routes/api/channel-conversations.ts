import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiEntities,
  ApiEntity,
  ConversationCounts,
  ConversationCountsQuery,
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
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

const tags = ['conversations'];
const ROLES = ['admin', 'agent'] as const;
const security = API_BEARER;
const readErrors = apiErrors(400, 401, 403, 404, 429);
/** Changes refused in the conversation's present state answer 409 `conversation_state`. */
const changeErrors = apiErrors(400, 401, 403, 404, 409, 429);
const noBody = { 'x-no-body': true };

type ApiApp = Parameters<FastifyPluginAsyncTypebox>[0];
type Conversations = ChannelModule['conversations'];
const base = '/api/tenants/:tenantId/conversations';

const listSchema = {
  tags,
  security,
  summary: 'List conversations: waiting ones in queue order, others most recent first; filters and cursor pages',
  description:
    'An agent sees the conversations assigned to them and those of their skill groups; a tenant admin all of the tenant. ' +
    "`from`/`to` bound `updatedAt` (inclusive); `cursor` is the previous page's, null on the last page.",
  params: TenantParams,
  querystring: ConversationQuery,
  response: { 200: ConversationPage, ...apiErrors(400, 401, 403, 429) },
};

const countsSchema = {
  tags,
  security,
  summary: "The inbox's counts: waiting, yours in progress, the team's in progress (one query)",
  description:
    'Counts the open conversations the caller may see (an agent: their skill groups and their own; a tenant admin: all of the tenant) ' +
    "that pass the filters, which mean what they mean in the list. `team` is in progress and assigned to someone else.",
  params: TenantParams,
  querystring: ConversationCountsQuery,
  response: { 200: ApiEntity(ConversationCounts), ...apiErrors(400, 401, 403, 429) },
};

const acceptSchema = {
  tags,
  security,
  ...noBody,
  summary: 'Take a waiting conversation of one of your skill groups (a tenant admin: any)',
  params: ConversationParams,
  response: { 200: ApiEntity(ConversationView), ...changeErrors },
};

const transferSchema = {
  tags,
  security,
  summary: 'Hand a conversation to an agent or a skill group',
  params: ConversationParams,
  body: TransferRequest,
  response: { 200: ApiEntity(ConversationView), ...changeErrors },
};

const replySchema = {
  tags,
  security,
  summary: 'Reply to the customer (pushed to the callback address)',
  description: '409 `conversation_state` unless the conversation is accepted and open; 403 when another agent holds it.',
  params: ConversationParams,
  body: SendReplyRequest,
  response: { 200: ApiEntity(SendReplyResult), ...changeErrors },
};

/** Contract 3.3 and 6.3: the agents' side of REST-channel conversations. */
export const channelConversationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  readRoutes(app, channel.conversations);
  changeRoutes(app, channel.conversations);
};

/** Lists, one conversation, its history. */
function readRoutes(app: ApiApp, conversations: Conversations): void {
  app.get(base, { schema: listSchema }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    const page = await conversations.list(request.params.tenantId, principal, request.query);
    return { ...list(page.entities), cursor: page.cursor };
  });

  app.get(`${base}/counts`, { schema: countsSchema }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.counts(request.params.tenantId, principal, request.query));
  });

  app.get(
    `${base}/:id`,
    { schema: { tags, summary: 'Read a conversation', security, params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...readErrors } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.get(request.params.tenantId, request.params.id, principal));
    },
  );

  app.get(
    `${base}/:id/messages`,
    { schema: { tags, summary: 'History: customer and agent messages with ext kept', security, params: ConversationParams, response: { 200: ApiEntities(MessageView), ...readErrors } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await conversations.history(request.params.tenantId, request.params.id, principal));
    },
  );
}

/** Taking, handing over, closing and replying. */
function changeRoutes(app: ApiApp, conversations: Conversations): void {
  app.post(`${base}/:id/accept`, { schema: acceptSchema }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.accept(request.params.tenantId, request.params.id, principal));
  });

  app.post(`${base}/:id/transfer`, { schema: transferSchema }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.transfer(request.params.tenantId, request.params.id, principal, request.body));
  });

  app.post(
    `${base}/:id/close`,
    { schema: { tags, summary: 'Close a conversation', security, ...noBody, params: ConversationParams, response: { 200: ApiEntity(ConversationView), ...changeErrors } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await conversations.close(request.params.tenantId, request.params.id, principal));
    },
  );

  app.post(`${base}/:id/messages`, { schema: replySchema }, async (request) => {
    const principal = principalOf(request);
    assertTenantAccess(principal, request.params.tenantId, ROLES);
    return ok(await conversations.reply(request.params.tenantId, request.params.id, principal, request.body.bodies));
  });
}
