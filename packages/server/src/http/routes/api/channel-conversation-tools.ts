import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntities, ApiEntity, ConversationParams, LabelsRequest, LabelsView, NoteRequest, NoteView } from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

const tags = ['conversations'];
const ROLES = ['admin', 'agent'] as const;
const security = API_BEARER;
const changeErrors = apiErrors(400, 401, 403, 404, 409, 429);
const base = '/api/tenants/:tenantId/conversations';

const TypingResult = Type.Object({ pushed: Type.Boolean({ description: 'Whether an `agent_typing` event was pushed (false: the association does not list it, or one was pushed moments ago)' }) }, { examples: [{ pushed: true }] });

/** Contract 6.4, the agent's side: typing signals, private notes, labels. */
export const channelConversationToolRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  app.post(
    `${base}/:id/typing`,
    {
      schema: {
        tags,
        security,
        'x-no-body': true,
        summary: 'Tell the customer the agent is typing (pushed as `agent_typing` when the association lists it)',
        description: 'The agent holding the conversation (or a tenant admin); at most one event per conversation every 2 seconds. 409 `conversation_state` unless the conversation is accepted and open.',
        params: ConversationParams,
        response: { 200: ApiEntity(TypingResult), ...changeErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await channel.typing.typing(request.params.tenantId, request.params.id, principal));
    },
  );

  app.post(
    `${base}/:id/notes`,
    {
      schema: {
        tags,
        security,
        summary: 'Add a private note to a conversation (never pushed to the customer)',
        params: ConversationParams,
        body: NoteRequest,
        response: { 200: ApiEntity(NoteView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await channel.tools.addNote(request.params.tenantId, request.params.id, principal, request.body.text));
    },
  );

  app.get(
    `${base}/:id/notes`,
    { schema: { tags, security, summary: "A conversation's private notes, oldest first", params: ConversationParams, response: { 200: ApiEntities(NoteView), ...apiErrors(400, 401, 403, 404, 429) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await channel.tools.notes(request.params.tenantId, request.params.id, principal));
    },
  );

  app.put(
    `${base}/:id/labels`,
    {
      schema: {
        tags,
        security,
        summary: "Replace a conversation's labels (the list's `label` filter matches them)",
        params: ConversationParams,
        body: LabelsRequest,
        response: { 200: ApiEntity(LabelsView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await channel.tools.setLabels(request.params.tenantId, request.params.id, principal, request.body.labels));
    },
  );
};
