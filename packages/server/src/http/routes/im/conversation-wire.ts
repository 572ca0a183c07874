/**
 * The server conversation list's wire forms: a conversation as the SDK parses it, and the
 * conversation a request names.
 */
import type { ConversationInfo } from '@parley/protocol';
import { AppError } from '../../../kernel/errors.js';
import { markNames } from '../../../modules/im/conversation-mark-set.js';
import type { ConversationEntry, ConversationRef } from '../../../modules/im/conversations.js';

/** A conversation as the SDK's `getServerConversations` parses it. */
export function channelInfo(c: ConversationEntry): ConversationInfo {
  const type = c.kind === 'chat' ? 'chat' : 'groupchat';
  const { last } = c;
  const payload = JSON.stringify({ bodies: last.payload.bodies, ext: last.payload.ext, from: last.from, to: last.to, type });
  return {
    session_to: c.peer,
    session_type: type,
    unread_num: c.unread,
    is_top: c.pinnedAt > 0,
    update_top_status_time: c.pinnedAt,
    marks: markNames(c.markSet),
    meta: { id: last.msgId, from: last.from, to: last.to, timestamp: last.timestamp, payload },
  };
}

/** The conversation a request names; a group `to` that is not a group id is 400 naming `field`. */
export function refOf(type: 'chat' | 'groupChat' | 'groupchat', peer: string, field = 'to'): ConversationRef {
  if (type === 'chat') return { kind: 'chat', peer: peer.toLowerCase() };
  if (!/^\d{1,20}$/.test(peer)) throw new AppError('illegal_argument', { detail: `${field}: "${peer.slice(0, 40)}" is not a group id` });
  return { kind: 'group', peer };
}
