/**
 * Recall over msync, both ways:
 * - in: a MessageBody RECALL (`ackMessageId` the message, Meta.ext `recallMessageExtensionInfo`)
 *   goes to `im.recalls`; a refusal is the status the SDK maps to its error
 *   (MESSAGE_RECALL_TIME_LIMIT, PERMISSION_DENIED, MODIFY_MESSAGE_NOT_EXIST for an unknown message);
 * - out: a `recall` frame becomes the RECALL meta the SDK turns into `onRecallMessage`.
 */
import type { ImRecallFrame } from '@parley/protocol';
import { isAppError } from '../../../kernel/errors.js';
import type { ImModule } from '../index.js';
import type { ImApp } from '../ports.js';
import { RECALL_NOT_SENDER, RECALL_TOO_LATE } from '../recalls.js';
import { encodeMessageBody, type Jid, type MessageBodyIn, type MetaIn, type MetaOut, type Status } from './codec.js';
import { groupJid, userJid } from './contents.js';
import { fromKeyValues, toKeyValues } from './key-values.js';
import { ErrorCode, MessageType, Namespace } from './schema.js';
import { OK } from './statuses.js';

const EXT_KEY = 'recallMessageExtensionInfo';

/** The status a refused recall gets (the SDK's own reasons). */
export function recallStatus(error: unknown): Status {
  if (isAppError(error)) {
    if (error.code === 'forbidden_op' && error.params.detail === RECALL_TOO_LATE) return { errorCode: ErrorCode.FAIL, reason: 'exceed recall time limit' };
    if (error.code === 'forbidden_op' && error.params.detail === RECALL_NOT_SENDER) return { errorCode: ErrorCode.FAIL, reason: 'blocked' };
    if (error.code === 'service_resource_not_found') return { errorCode: ErrorCode.FAIL, reason: 'Sorry, message does not exist' };
    return { errorCode: ErrorCode.FAIL, reason: `${error.code}: ${error.message}` };
  }
  return { errorCode: ErrorCode.FAIL, reason: 'internal error' };
}

/** Recalls the client's message; answers the status of its meta. */
export async function takeRecall(im: ImModule, sender: { app: ImApp; username: string; device?: string; resource?: string }, meta: MetaIn, body: MessageBodyIn): Promise<Status> {
  const ext = fromKeyValues(meta.ext)[EXT_KEY];
  try {
    await im.recalls.recall(sender.app, {
      msgId: body.ackMessageId ?? '',
      by: sender.username,
      ...(typeof ext === 'string' && ext !== '' ? { ext: ext.slice(0, 1024) } : {}),
      ...(sender.device === undefined ? {} : { device: sender.device, resource: sender.resource ?? '' }),
    });
    return OK;
  } catch (error) {
    return recallStatus(error);
  }
}

/** A recall frame as the meta `me` pulls, with its queue (the conversation). */
export function recallMeta(appKey: string, f: ImRecallFrame, me: string): { queue: Jid; meta: MetaOut } {
  const from = userJid(appKey, f.from);
  const to = f.chat_type === 'chat' ? userJid(appKey, f.to) : groupJid(appKey, f.to);
  const queue = f.chat_type === 'chat' ? userJid(appKey, f.to === me ? f.from : f.to) : to;
  const payload = encodeMessageBody({ type: MessageType.RECALL, from, to, ackMessageId: f.msg_id });
  return { queue, meta: { id: f.id, from, to, timestamp: f.timestamp, ns: Namespace.CHAT, payload, ...(f.ext ? { ext: toKeyValues({ [EXT_KEY]: f.ext }) } : {}) } };
}
