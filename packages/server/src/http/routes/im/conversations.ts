import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ConversationInfo} from '@parley/protocol';
import { ConversationListQuery, ConversationListResult, DeleteConversationRequest, ImEnvelope, RoamingParams } from '@parley/protocol';
import { Type } from 'typebox';
import type { ConversationEntry } from '../../../modules/im/conversations.js';
import { imAction, imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const tags = ['im'];

/** A conversation as the SDK's `getServerConversations` parses it. */
function channelInfo(c: ConversationEntry): ConversationInfo {
  const type = c.kind === 'chat' ? 'chat' : 'groupchat';
  const { last } = c;
  const payload = JSON.stringify({ bodies: last.payload.bodies, ext: last.payload.ext, from: last.from, to: last.to, type });
  return {
    session_to: c.peer,
    session_type: type,
    unread_num: c.unread,
    is_top: false,
    update_top_status_time: 0,
    marks: [],
    meta: { id: last.msgId, from: last.from, to: last.to, timestamp: last.timestamp, payload },
  };
}

/**
 * Contract 6.8, the SDK's server conversations: `GET /sdk/user/{u}/user_channels/list` (the user's
 * own token, or the app token) and `DELETE /user/{u}/user_channel` (`deleteConversation`).
 */
export const imConversationRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  app.get(
    '/sdk/user/:username/user_channels/list',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags,
        summary: "The user's conversations, latest first, with the last message and the unread count",
        security: IM_TOKEN,
        params: RoamingParams,
        querystring: ConversationListQuery,
        response: { 200: ImEnvelope(ConversationListResult), ...imErrors(...IM_ADMIN_ERRORS) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      // No conversation is pinned: the pinned list is empty.
      if (request.query.is_top) return imData(request, imApp, { cursor: '', channel_infos: [] });
      const page = await im.conversations.list(imApp, me, request.query.limit ?? 20, request.query.cursor || undefined);
      return imData(request, imApp, { cursor: page.cursor, channel_infos: page.entries.map(channelInfo) });
    },
  );

  app.delete(
    '/user/:username/user_channel',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags,
        summary: "Delete one conversation from the user's list (and its history for them, with delete_roam)",
        security: IM_TOKEN,
        params: RoamingParams,
        querystring: Type.Object({ resource: Type.Optional(Type.String({ maxLength: 128 })) }),
        body: DeleteConversationRequest,
        response: { 200: ImEnvelope(Type.Object({ result: Type.Literal('ok') })), ...imErrors(...IM_ADMIN_ERRORS) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      const { channel, type, delete_roam: clear } = request.body;
      const ref = type === 'chat' ? { kind: 'chat' as const, peer: channel.toLowerCase() } : { kind: 'group' as const, peer: channel };
      await im.conversations.remove(imApp, me, ref, clear === true);
      return { ...imAction(request, imApp, 'delete'), data: { result: 'ok' as const } };
    },
  );
};
