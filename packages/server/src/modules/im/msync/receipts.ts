/**
 * Receipts over msync, both ways (pure but for the one call into the IM module):
 * - in: a MessageBody READ_ACK, DELIVER_ACK or CHANNEL_ACK from the client, to a user or (read
 *   acks of group messages, `msgConfig.allowGroupAck`) a group, becomes a receipt of `im.receipts`;
 * - out: a `receipt` frame becomes the ack meta the SDK turns into `onReadMessage`,
 *   `onDeliveredMessage` or `onChannelMessage` (group reads carry `groupReadCount`, keyed by the
 *   message id, in the body's first ext entry, and the reader's `ackContent`).
 */
import type { ImReceiptFrame, ImReceiptKind } from '@parley/protocol';
import type { ImModule } from '../index.js';
import type { ImApp } from '../ports.js';
import { encodeMessageBody, type Jid, type MessageBodyIn, type MetaIn, type MetaOut, type Status } from './codec.js';
import { GROUP_DOMAIN, groupJid, userJid } from './contents.js';
import { MessageType, Namespace, ValueType } from './schema.js';
import { OK } from './statuses.js';

const KINDS: Partial<Record<number, ImReceiptKind>> = {
  [MessageType.READ_ACK]: 'read',
  [MessageType.DELIVER_ACK]: 'delivered',
  [MessageType.CHANNEL_ACK]: 'channel',
};

const TYPES: Record<ImReceiptKind, number> = { read: MessageType.READ_ACK, delivered: MessageType.DELIVER_ACK, channel: MessageType.CHANNEL_ACK };

/** Whether a MessageBody is a receipt. */
export const isReceipt = (body: MessageBodyIn): boolean => KINDS[body.type ?? 0] !== undefined;

/** Forwards a client's receipt; answers the status its meta gets. */
export async function takeReceipt(im: ImModule, sender: { app: ImApp; username: string }, meta: MetaIn, body: MessageBodyIn): Promise<Status> {
  const kind = KINDS[body.type ?? 0] ?? 'read';
  const target = meta.to ?? body.to;
  const group = target?.domain === GROUP_DOMAIN || body.msgConfig?.allowGroupAck === true;
  try {
    await im.receipts.send(sender.app, {
      from: sender.username,
      kind,
      chatType: group ? 'groupchat' : 'chat',
      to: target?.name ?? '',
      ...(body.ackMessageId && body.ackMessageId !== '0' ? { msgId: body.ackMessageId } : {}),
      ...(body.ackContent ? { ackContent: body.ackContent } : {}),
    });
    return OK;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === 'forbidden_op') return { errorCode: 1, reason: 'not in group or chatroom' };
    if (e.code === 'service_resource_not_found' && group) return { errorCode: 1, reason: 'group not found' };
    return { errorCode: 1, reason: `${e.code ?? 'internal_error'}: ${e.message ?? ''}` };
  }
}

/** A receipt frame as the meta its user pulls, with the queue it is pulled from (the other user). */
export function receiptMeta(appKey: string, f: ImReceiptFrame): { queue: Jid; meta: MetaOut } {
  const from = userJid(appKey, f.from);
  const to = f.chat_type === 'groupchat' ? groupJid(appKey, f.to) : userJid(appKey, f.to);
  const groupCount = f.chat_type === 'groupchat' && f.msg_id ? [{ key: 'group_read_count', type: ValueType.JSON_STRING, stringValue: JSON.stringify({ [f.msg_id]: f.read_count ?? 1 }) }] : undefined;
  const payload = encodeMessageBody({
    type: TYPES[f.kind],
    from,
    to,
    ...(f.msg_id ? { ackMessageId: f.msg_id } : {}),
    ...(groupCount ? { ext: groupCount } : {}),
    ...(f.ack_content ? { ackContent: f.ack_content } : {}),
  });
  return { queue: from, meta: { id: f.id, from, to, timestamp: f.timestamp, ns: Namespace.CHAT, payload } };
}
