/**
 * The pre-send record of a message and its signed request (contract 6.5): Easemob's pre-send
 * record with `payload` `{bodies, ext}` as in the post-send record, `security` = MD5(callId +
 * secret + timestamp) added last, the body MD5 header and the Standard Webhooks headers keyed
 * with the rule's secret, as post-send records are signed (record-signing.ts). Pure.
 */
import type { PresendRecord } from '@parley/protocol';
import type { StoredMessage } from '../../im/ports.js';
import type { PresendRule } from './ports.js';
import { signedRequest, type SignedRequest, type SigningKeys } from '../record-signing.js';
import type { UnsignedRecord } from '../record.js';

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

/** True when the rule covers the message: its chat type and at least one body's type. */
export function presendRuleMatches(rule: Pick<PresendRule, 'chatTypes' | 'messageTypes'>, message: Pick<StoredMessage, 'chatType' | 'payload'>): boolean {
  if (!rule.chatTypes.includes(message.chatType === 'chat' ? 'chat' : 'groupchat')) return false;
  const types: readonly string[] = rule.messageTypes;
  return message.payload.bodies.some((b) => types.includes(b.type));
}

/** The exact body and headers of the POST, signed with the rule's secret (its text or its keys) at `nowMs`. */
export function signedPresend(record: PresendRecord, keys: SigningKeys | string, nowMs: number): SignedRequest {
  // The signing of post-send records serialises any record the same way: members in order, `security` last.
  return signedRequest(record as unknown as UnsignedRecord, keys, nowMs);
}
