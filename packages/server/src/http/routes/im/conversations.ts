import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ConversationListQuery,
  ConversationListResult,
  DeleteConversationRequest,
  ImEnvelope,
  PinConversationRequest,
  PinConversationResult,
  RoamingParams,
  UnpinConversationQuery,
} from '@parley/protocol';
import { Type } from 'typebox';
import { imAction, imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { markRoutes } from './conversation-marks.js';
import { channelInfo, refOf } from './conversation-wire.js';
import { imAppOf } from './context.js';

const tags = ['im'];

/**
 * Contract 6.8, the SDK's server conversations: `GET /sdk/user/{u}/user_channels/list` (the user's
 * own token, or the app token; `is_top=true`: the pinned ones), `DELETE /user/{u}/user_channel`
 * (`deleteConversation`), `POST|DELETE /sdk/user/{u}/user_channel/top` (`pinConversation`) and the
 * conversation marks (conversation-marks.ts).
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
      const page = await im.conversations.list(imApp, me, request.query.limit ?? 20, request.query.cursor || undefined, { pinned: request.query.is_top === true });
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
      await im.conversations.remove(imApp, me, refOf(type, channel), clear === true);
      return { ...imAction(request, imApp, 'delete'), data: { result: 'ok' as const } };
    },
  );

  pinRoutes(app, im);
  markRoutes(app, im);
};

/** `pinConversation`: `POST|DELETE /sdk/user/{u}/user_channel/top`. */
function pinRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], im: ImModule): void {
  const pinSchema = {
    tags,
    security: IM_TOKEN,
    params: RoamingParams,
    response: { 200: ImEnvelope(PinConversationResult), ...imErrors(...IM_ADMIN_ERRORS) },
  };
  app.post(
    '/sdk/user/:username/user_channel/top',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        ...pinSchema,
        summary: "Pin one conversation in the user's list (is_top in the list, and in the pinned list)",
        querystring: Type.Object({ resource: Type.Optional(Type.String({ maxLength: 128 })) }),
        body: PinConversationRequest,
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      const pinnedAt = await im.conversations.pin(imApp, me, refOf(request.body.type, request.body.to), true);
      return imData(request, imApp, { is_top: true, update_top_status_time: pinnedAt });
    },
  );
  app.delete(
    '/sdk/user/:username/user_channel/top',
    {
      config: { imAuth: { self: 'username' } },
      schema: { ...pinSchema, summary: "Unpin one conversation in the user's list", querystring: UnpinConversationQuery },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      await im.conversations.pin(imApp, me, refOf(request.query.type, request.query.to), false);
      return imData(request, imApp, { is_top: false, update_top_status_time: 0 });
    },
  );
}
