/**
 * Easemob's conversation marks on the server conversation list: `POST|DELETE
 * /sdk/user/{u}/user_channels/mark` (`addConversationMark`, `removeConversationMark`: one mark,
 * `mark_0` … `mark_19`, on up to 20 conversations) and `GET /sdk/user/{u}/user_channels/mark/search`
 * (`getServerConversationsByFilter`: the conversations carrying a mark, paged as the list).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MarkConversationRequest as MarkBody } from '@parley/protocol';
import { ConversationListResult, ImEnvelope, MarkConversationRequest, MarkConversationResult, MarkSearchQuery, RoamingParams } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { markOf } from '../../../modules/im/conversation-mark-set.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';
import { channelInfo, refOf } from './conversation-wire.js';

const tags = ['im'];

/** Marks or unmarks every conversation named, after checking them all (nothing written on bad input). */
async function setMark(request: FastifyRequest & { params: { username: string }; body: MarkBody }, im: ImModule, on: boolean) {
  const imApp = imAppOf(request);
  const me = request.params.username.trim().toLowerCase();
  const mark = markOf(request.body.mark, 'mark');
  const refs = request.body.targets.map((t, i) => refOf(t.type, t.to, `targets[${i}].to`));
  await im.conversations.setMark(imApp, me, refs, mark, on);
  return imData(request, imApp, { ignore: [] });
}

export function markRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], im: ImModule): void {
  const markSchema = {
    tags,
    security: IM_TOKEN,
    params: RoamingParams,
    querystring: Type.Object({ resource: Type.Optional(Type.String({ maxLength: 128 })) }),
    body: MarkConversationRequest,
    response: { 200: ImEnvelope(MarkConversationResult), ...imErrors(...IM_ADMIN_ERRORS) },
  };
  app.post(
    '/sdk/user/:username/user_channels/mark',
    { config: { imAuth: { self: 'username' } }, schema: { ...markSchema, summary: "Put one mark on up to 20 of the user's conversations" } },
    async (request) => setMark(request, im, true),
  );
  app.delete(
    '/sdk/user/:username/user_channels/mark',
    { config: { imAuth: { self: 'username' } }, schema: { ...markSchema, summary: "Take one mark off up to 20 of the user's conversations" } },
    async (request) => setMark(request, im, false),
  );
  app.get(
    '/sdk/user/:username/user_channels/mark/search',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags,
        summary: "The user's conversations carrying one mark, latest first, paged as the list",
        security: IM_TOKEN,
        params: RoamingParams,
        querystring: MarkSearchQuery,
        response: { 200: ImEnvelope(ConversationListResult), ...imErrors(...IM_ADMIN_ERRORS) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      const mark = markOf(request.query.mark, 'mark');
      const page = await im.conversations.list(imApp, me, request.query.limit ?? 10, request.query.cursor || undefined, { mark });
      return imData(request, imApp, { cursor: page.cursor, channel_infos: page.entries.map(channelInfo) });
    },
  );
}
