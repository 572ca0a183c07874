/**
 * Who receives a message, and the frame their sockets get: shared by the live push, the fan-out
 * job and the drains of stored messages.
 */
import type { ImMessageFrame } from '@parley/protocol';
import type { ImGroupsRepository, StoredMessage } from './ports.js';

/** The user (`chat`), or the members of the group or room but the sender. */
export async function receiversOf(groups: ImGroupsRepository, message: StoredMessage): Promise<string[]> {
  if (message.chatType === 'chat') return [message.to];
  return (await groups.members(message.to)).map((m) => m.username).filter((u) => u !== message.from);
}

export function messageFrame(m: StoredMessage, offline = false): ImMessageFrame {
  return {
    op: 'message',
    msg_id: m.msgId,
    from: m.from,
    to: m.to,
    chat_type: m.chatType,
    ...(m.chatType === 'chat' ? {} : { group_id: m.to }),
    timestamp: m.timestamp,
    ...(offline ? { offline: true } : {}),
    ...(m.onlineOnly ? { online_only: true } : {}),
    payload: m.payload,
  };
}
