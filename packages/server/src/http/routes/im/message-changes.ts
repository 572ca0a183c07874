/**
 * What happens to a message after it was sent, over REST: who read a group message (read
 * receipts, `GET /chatgroups/{id}/acks/{msgId}`, the app token or a member's user token) and the
 * app admin's recall (`POST /messages/msg_recall`, any message, any time), in Easemob's shapes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImEnvelope } from '@parley/protocol';
import { Type } from 'typebox';
import { isAppError } from '../../../kernel/errors.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const AcksParams = Type.Object({ org: Type.String(), app: Type.String(), id: Type.String({ pattern: '^\\d{1,20}$' }), msgId: Type.String({ pattern: '^\\d{1,19}$' }) });
const AcksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
  key: Type.Optional(Type.String({ maxLength: 64, description: 'next_key of the previous page' })),
});
const GroupAcks = Type.Object(
  {
    ackmid: Type.String(),
    total: Type.Integer({ description: 'members who read the message' }),
    userlist: Type.Array(Type.String()),
    is_last: Type.Boolean(),
    next_key: Type.String({ description: 'pass as `key` for the next page; empty on the last' }),
    timestamp: Type.Integer(),
  },
  { examples: [{ ackmid: '7353398784950272', total: 2, userlist: ['bob', 'carol'], is_last: true, next_key: '', timestamp: 1700000000000 }] },
);

const RecallRequest = Type.Object(
  {
    msg_id: Type.String({ pattern: '^\\d{1,19}$' }),
    to: Type.String({ minLength: 1, maxLength: 128, description: 'the receiver of the message: user, group or chat-room id' }),
    chat_type: Type.Union([Type.Literal('chat'), Type.Literal('groupchat'), Type.Literal('chatroom')]),
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'who the receivers are told recalled it (default admin)' })),
    force: Type.Optional(Type.Boolean()),
  },
  { examples: [{ msg_id: '7353398784950272', to: 'bob', chat_type: 'chat' }] },
);
const Recalled = Type.Object(
  {
    msg_id: Type.String(),
    recalled: Type.String({ description: '`yes`, or Easemob\'s reason: `not_found msg` (unknown, or already recalled)' }),
    from: Type.String(),
    to: Type.String(),
    chattype: Type.String(),
  },
  { examples: [{ msg_id: '7353398784950272', recalled: 'yes', from: 'admin', to: 'bob', chattype: 'chat' }] },
);

export const imMessageChangeRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);

  app.get(
    '/chatgroups/:id/acks/:msgId',
    {
      config: { imAuth: 'user' },
      schema: { tags, summary: 'Who read a group message (app token, or a member)', security, params: AcksParams, querystring: AcksQuery, response: { 200: ImEnvelope(GroupAcks), ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const principal = request.imPrincipal;
      const viewer = principal?.level === 'user' ? principal.username : undefined;
      const limit = request.query.limit ?? 500;
      // The SDK's first page sends `key=undefined` (its own undefined, as text).
      const key = request.query.key === 'undefined' ? undefined : request.query.key || undefined;
      const page = await im.receipts.readers(imApp, request.params.id, request.params.msgId, viewer, key, limit);
      return imData(request, imApp, {
        ackmid: page.msgId,
        total: page.total,
        userlist: page.readers,
        is_last: page.next === undefined,
        next_key: page.next ?? '',
        timestamp: Date.now(),
      });
    },
  );

  app.post(
    '/messages/msg_recall',
    { schema: { tags, summary: 'Recall a message (app token: any message, any time)', security, body: RecallRequest, response: { 200: ImEnvelope(Recalled), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const b = request.body;
      const from = b.from ?? 'admin';
      const answer = (recalled: string) => imData(request, imApp, { msg_id: b.msg_id, recalled, from, to: b.to, chattype: b.chat_type });
      try {
        const message = await im.recalls.recall(imApp, { msgId: b.msg_id, to: b.to, as: from });
        return imData(request, imApp, { msg_id: message.msgId, recalled: 'yes', from, to: message.to, chattype: message.chatType });
      } catch (error) {
        // Easemob answers an unknown or already recalled message with its reason, not an error status.
        if (isAppError(error) && error.code === 'service_resource_not_found') return answer('not_found msg');
        throw error;
      }
    },
  );
};
