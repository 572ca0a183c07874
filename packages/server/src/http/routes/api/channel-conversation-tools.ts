import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ConversationParams } from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { ok } from './envelope.js';

const tags = ['conversations'];
const ROLES = ['admin', 'agent'] as const;
const security = API_BEARER;
const changeErrors = apiErrors(400, 401, 403, 404, 409, 429);
const base = '/api/tenants/:tenantId/conversations';

const TypingResult = Type.Object({ pushed: Type.Boolean({ description: 'Whether an `agent_typing` event was pushed (false: the association does not list it, or one was pushed moments ago)' }) }, { examples: [{ pushed: true }] });

/** Contract 6.4, the agent's side: typing signals. */
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
};
