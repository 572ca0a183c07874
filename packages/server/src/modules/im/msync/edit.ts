/**
 * Edits over msync, both ways:
 * - in: a MessageBody EDIT (`editMessageId` the message, the new content, `editScope` BODY or
 *   BODY_AND_EXT with the new ext) goes to `im.edits`; a refusal is the status the SDK maps to its
 *   error (PERMISSION_DENIED, MODIFY_MESSAGE_NOT_EXIST, MAX_LIMIT, MODIFY_MESSAGE_FORMAT_ERROR);
 * - out: an `edit` frame becomes the EDIT meta the SDK turns into `onModifiedMessage`, with
 *   `meta.edit_msg` (sender, send time, chat type, operator, edit time, count).
 */
import type { ImEditFrame, ImMessageBody } from '@parley/protocol';
import { AppError, isAppError } from '../../../kernel/errors.js';
import { inspectJson } from '../../../kernel/input-checks.js';
import { normaliseBody } from '../bodies.js';
import { EDIT_FORMAT, EDIT_LIMIT, EDIT_NOT_SENDER } from '../edits.js';
import type { ImModule } from '../index.js';
import type { ImApp } from '../ports.js';
import type { MessageBody } from '../post-send.js';
import { encodeMessageBody, type Jid, type MessageBodyIn, type MetaOut, type Status } from './codec.js';
import { groupJid, toContent, toParleyBody, userJid } from './contents.js';
import { fromKeyValues, toKeyValues } from './key-values.js';
import { ErrorCode, MessageType, Namespace } from './schema.js';
import { OK, sendStatus } from './statuses.js';

const BODY_AND_EXT = 2;
const CHAT_TYPES = { chat: 'chat:user', groupchat: 'chat:group', chatroom: 'chat:room' } as const;

/** The status a refused edit gets (the SDK's own reasons). */
export function editStatus(error: unknown): Status {
  if (isAppError(error)) {
    const detail = error.params.detail;
    if (error.code === 'service_resource_not_found') return { errorCode: ErrorCode.FAIL, reason: 'Sorry, message does not exist' };
    if (error.code === 'forbidden_op' && detail === EDIT_NOT_SENDER) return { errorCode: ErrorCode.FAIL, reason: 'Sorry, You do not have permission' };
    if (error.code === 'forbidden_op' && detail === EDIT_LIMIT) return { errorCode: ErrorCode.FAIL, reason: 'Sorry, edit limit reached' };
    if (error.code === 'illegal_argument') return { errorCode: ErrorCode.FAIL, reason: 'Sorry, format is incorrect' };
  }
  return sendStatus(error, 'chat', '');
}

/** Edits the client's message; answers the status of its meta. */
export async function takeEdit(im: ImModule, sender: { app: ImApp; username: string; device?: string; resource?: string }, body: MessageBodyIn): Promise<Status> {
  try {
    const [content] = body.contents ?? [];
    if (!content) throw new AppError('illegal_argument', { detail: EDIT_FORMAT });
    const { type, ...fields } = toParleyBody(content);
    const parsed = normaliseBody(type, fields, 'body', 'body.type') as ImMessageBody;
    const ext = body.editScope === BODY_AND_EXT ? fromKeyValues(body.ext) : undefined;
    const fault = inspectJson({ body: parsed, ext }, 'message');
    if (fault) return { errorCode: ErrorCode.FAIL, reason: 'Sorry, format is incorrect' };
    await im.edits.edit(sender.app, {
      msgId: body.editMessageId ?? '',
      by: sender.username,
      body: parsed,
      ...(ext ? { ext } : {}),
      ...(sender.device === undefined ? {} : { device: sender.device, resource: sender.resource ?? '' }),
    });
    return OK;
  } catch (error) {
    return editStatus(error);
  }
}

/** An edit frame as the meta `me` pulls, with its queue (the conversation). */
export function editMeta(appKey: string, f: ImEditFrame, me: string): { queue: Jid; meta: MetaOut } {
  const from = userJid(appKey, f.from);
  const to = f.chat_type === 'chat' ? userJid(appKey, f.to) : groupJid(appKey, f.to);
  const queue = f.chat_type === 'chat' ? userJid(appKey, f.from === me ? f.to : f.from) : to;
  const editMsg = { sender: f.from, send_time: String(f.timestamp), chat_type: CHAT_TYPES[f.chat_type], operator: f.from, edit_time: f.edit_time, count: f.count };
  const payload = encodeMessageBody({
    type: MessageType.EDIT,
    from,
    to,
    editMessageId: f.msg_id,
    editScope: BODY_AND_EXT,
    contents: f.payload.bodies.map((b) => toContent(b as MessageBody)),
    ext: toKeyValues(f.payload.ext),
    meta: JSON.stringify({ edit_msg: editMsg }),
  });
  return { queue, meta: { id: f.id, from, to, timestamp: f.edit_time, ns: Namespace.CHAT, payload } };
}
