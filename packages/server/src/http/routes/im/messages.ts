/**
 * Sending over REST (contract 4.3): `/messages/users|chatgroups|chatrooms` and the legacy
 * `/messages`. Bodies over 5 KiB are a 400 `message_send_error`, not a 413, as Easemob answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IM_LIMITS, ImEnvelope, LegacySendMessageRequest, SendMessageRequest, SentMessages } from '@parley/protocol';
import { AppError } from '../../../kernel/errors.js';
import { normaliseBody } from '../../../modules/im/bodies.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { MessageChatType } from '../../../modules/im/post-send.js';
import { requestSurface } from '../../surface.js';
import { failure } from '../../pipeline.js';
import { sendError } from '../../plugins/errors.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

type Target = 'users' | 'chatgroups' | 'chatrooms';
const CHAT_TYPE: Record<Target, MessageChatType> = { users: 'chat', chatgroups: 'groupchat', chatrooms: 'chatroom' };

function assertReceivers(target: Target, to: string[], field: string): void {
  const max = IM_LIMITS.receivers[target];
  if (to.length > max) throw new AppError('illegal_argument', { detail: `${field}: at most ${max} receivers per request to ${target} (got ${to.length})` });
}

export const imMessageRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  // The pipeline's errors step, with Easemob's answer to a body over the limit.
  app.setErrorHandler((error, request, reply) => {
    const tooLarge = (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
    const thrown = tooLarge ? new AppError('message_send_error', { detail: 'message is too large' }) : error;
    return sendError(reply, request, failure(thrown, request, requestSurface(request)));
  });

  const bodyLimit = IM_LIMITS.messageBytes;
  const response = { 200: ImEnvelope(SentMessages), ...imErrors(...IM_ADMIN_ERRORS) };
  const security = IM_TOKEN;

  for (const target of ['users', 'chatgroups', 'chatrooms'] as const) {
    app.post(
      `/messages/${target}`,
      { bodyLimit, schema: { tags: ['im'], summary: `Send a message to ${target} (at most ${IM_LIMITS.receivers[target]})`, security, body: SendMessageRequest, response } },
      async (request) => {
        const imApp = imAppOf(request);
        const b = request.body;
        assertReceivers(target, b.to, 'to');
        const bodies = [normaliseBody(b.type, b.body as Record<string, unknown>, 'body', 'type')];
        const accepted = await im.messages.send(imApp, {
          from: b.from ?? 'admin',
          chatType: CHAT_TYPE[target],
          targets: b.to,
          bodies,
          ext: (b.ext ?? {}) as Record<string, unknown>,
          source: 'rest',
          requireMembership: false,
          // Easemob's fields: the sender's online devices get it too; only receivers online now get it.
          ...(b.sync_device ? { device: '' } : {}),
          ...(b.routetype === 'ROUTE_ONLINE' ? { onlineOnly: true } : {}),
        });
        return imData(request, imApp, Object.fromEntries(accepted.map((a) => [a.target, a.msgId])));
      },
    );
  }

  app.post(
    '/messages',
    { bodyLimit, schema: { tags: ['im'], summary: 'Send a message (legacy form)', security, body: LegacySendMessageRequest, response } },
    async (request) => {
      const imApp = imAppOf(request);
      const b = request.body;
      assertReceivers(b.target_type, b.target, 'target');
      const { type, ...fields } = b.msg;
      const bodies = [normaliseBody(type, fields, 'msg', 'msg.type')];
      const accepted = await im.messages.send(imApp, {
        from: b.from ?? 'admin',
        chatType: CHAT_TYPE[b.target_type],
        targets: b.target,
        bodies,
        ext: (b.ext ?? {}) as Record<string, unknown>,
        source: 'rest',
        requireMembership: false,
      });
      return imData(request, imApp, Object.fromEntries(accepted.map((a) => [a.target, 'success'])));
    },
  );
};
