/**
 * The pre-send record of a message and what signs it (contract 6.5): Easemob's pre-send record
 * with `payload` `{bodies, ext}` as in the post-send record, `security` = MD5(callId + secret +
 * timestamp) added last, the body MD5 header and the Standard Webhooks headers keyed with the
 * rule's secret, as post-send records are signed (signed-json.ts). The record goes to the
 * outbound sender unsigned (`OutboundRequest.signing`) and is signed where it is sent. Pure.
 */
import type { PresendEditRecord, PresendRecord } from '@parley/protocol';
import type { StoredMessage } from '../../im/ports.js';
import type { EditUnderReview } from '../../im/pre-send.js';
import type { OutboundSigning } from '../../outbound/ports.js';
import type { PresendRule } from './ports.js';

export function presendRecord(message: StoredMessage, appkey: string, newUuid: () => string): PresendRecord {
  const group = message.chatType !== 'chat';
  return {
    callId: `${appkey}_${newUuid()}`,
    timestamp: message.timestamp,
    chat_type: group ? 'groupchat' : 'chat',
    ...(group ? { group_id: message.to } : {}),
    from: message.from,
    to: message.to,
    msg_id: message.msgId,
    payload: { bodies: message.payload.bodies, ext: message.payload.ext },
  };
}

const EDIT_CHAT_TYPES = { chat: 'chat:user', groupchat: 'chat:group', chatroom: 'chat:room' } as const;

/**
 * The pre-send record of an edit, in Easemob's shape for an edit's record: `chat_type` "edit",
 * `msg_id` the edit's id, `timestamp` its time, and the payload naming the message edited
 * (`edit_message_id`) with its new `bodies` and `ext` and `meta.edit_msg` (the message's chat type,
 * sender and send time, the operator and the edit time).
 */
export function presendEditRecord(edit: EditUnderReview, appkey: string, newUuid: () => string): PresendEditRecord {
  const m = edit.message;
  return {
    callId: `${appkey}_${newUuid()}`,
    timestamp: edit.editTime,
    chat_type: 'edit',
    ...(m.chatType === 'chat' ? {} : { group_id: m.to }),
    from: m.from,
    to: m.to,
    msg_id: edit.editId,
    payload: {
      type: 'edit',
      edit_message_id: m.msgId,
      bodies: m.payload.bodies,
      ext: m.payload.ext,
      meta: { edit_msg: { chat_type: EDIT_CHAT_TYPES[m.chatType], send_time: m.timestamp, edit_time: edit.editTime, sender: m.from, operator: m.from } },
    },
  };
}

/** True when the rule covers the message: its chat type and at least one body's type. */
export function presendRuleMatches(rule: Pick<PresendRule, 'chatTypes' | 'messageTypes'>, message: Pick<StoredMessage, 'chatType' | 'payload'>): boolean {
  if (!rule.chatTypes.includes(message.chatType === 'chat' ? 'chat' : 'groupchat')) return false;
  const types: readonly string[] = rule.messageTypes;
  return message.payload.bodies.some((b) => types.includes(b.type));
}

/** What signs the record with the rule's secret at `nowMs`, where the request is sent. */
export function presendSigning(record: PresendRecord | PresendEditRecord, secret: string, nowMs: number): OutboundSigning {
  // Signed as post-send records are: members in order, `security` last.
  return { record: JSON.stringify(record), callId: record.callId, timestamp: record.timestamp, secret, nowMs };
}
