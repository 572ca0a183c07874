/**
 * Callback records (spec 2.4, contract 4.5) built from an accepted message, and the rule filters
 * that pick which rules receive which records; the records of other operations are in
 * catalogue.ts. Pure: the uuid source is passed in. The signed request of a record is built in
 * record-signing.ts.
 */
import {
  CALLBACK_SECURITY_VERSION,
  type CallbackRecord,
  type CallbackChatType,
  type CallbackEventType,
  type CallbackMessageType,
  type CallbackSource,
} from '@parley/protocol';
import type { MessageEvent } from '../im/post-send.js';
import type { UnsignedCatalogueRecord } from './catalogue.js';
import type { GroupOpRecord } from './group-ops.js';

/** Which records a rule receives: each list must contain the record's value (message types: any body's type). */
export interface RuleFilters {
  eventTypes: CallbackEventType[];
  chatTypes: CallbackChatType[];
  messageTypes: CallbackMessageType[];
  sources: CallbackSource[];
}

/** A message record before signing: `security` depends on the rule's secret at send time. */
export type UnsignedMessageRecord = Omit<CallbackRecord, 'security' | 'payload'> & { payload: MessageEvent['payload'] };

/** Any record before signing: a message's, a group operation's, or one of the event catalogue (catalogue.ts). */
export type UnsignedRecord = UnsignedMessageRecord | GroupOpRecord | UnsignedCatalogueRecord;

/**
 * What the delivery log and the exception store say of a record: its event type (a rule's
 * `event_types` name), the message it is about (a recall's or a read receipt's: the message
 * recalled or read; none for a login or a group operation), and its users by name (the sender or
 * operator; the receiver or group).
 */
export interface RecordFacts {
  eventType: CallbackEventType;
  msgId: string;
  from: string;
  to: string;
}

export function recordFacts(record: UnsignedRecord): RecordFacts {
  if ('event' in record) return { eventType: record.event, msgId: '', from: record.operator, to: record.id };
  if (record.eventType === 'userStatus') return { eventType: 'userStatus', msgId: '', from: userOfJid(record.appkey, record.user), to: '' };
  if (record.chat_type === 'roster') return { eventType: 'roster', msgId: record.msg_id, from: userOfJid(record.appkey, record.from), to: record.to };
  if (record.chat_type === 'recall') return { eventType: 'recall', msgId: record.recall_id, from: record.from, to: record.to };
  if (record.chat_type === 'read_ack') return { eventType: 'read_ack', msgId: record.payload.ack_message_id, from: record.from, to: record.to };
  return { eventType: record.eventType, msgId: record.msg_id, from: record.from, to: record.to };
}

/** `{appkey}_{user}@easemob.com[/resource]` (protocol `callbackUserJid`) → `user`. */
function userOfJid(appkey: string, jid: string): string {
  const head = `${appkey}_`;
  if (!jid.startsWith(head)) return jid;
  const rest = jid.slice(head.length);
  const at = rest.indexOf('@');
  return at < 0 ? rest : rest.slice(0, at);
}

export function callbackChatType(event: Pick<MessageEvent, 'chatType'>): CallbackChatType {
  return event.chatType === 'chat' ? 'chat' : 'groupchat';
}

/**
 * The records one message produces, before rule filters: `chat` for the message, then one
 * `chat_offline` per offline receiver with `to` = that receiver (chat rooms have none).
 */
export function recordsOf(event: MessageEvent, newUuid: () => string): UnsignedMessageRecord[] {
  const chatType = callbackChatType(event);
  const base = (eventType: CallbackRecord['eventType'], to: string): UnsignedMessageRecord => ({
    callId: `${event.appkey}_${newUuid()}`,
    eventType,
    timestamp: event.timestamp,
    chat_type: chatType,
    ...(chatType === 'groupchat' ? { group_id: event.groupId ?? event.to } : {}),
    from: event.from,
    to,
    msg_id: event.msgId,
    payload: { bodies: event.payload.bodies, ext: event.payload.ext },
    securityVersion: CALLBACK_SECURITY_VERSION,
  });
  const records = [base('chat', event.to)];
  if (event.chatType !== 'chatroom') {
    for (const receiver of event.offlineReceivers) {
      if (receiver !== event.from) records.push(base('chat_offline', receiver));
    }
  }
  return records;
}

/** True when a rule's filters accept a record of `event`. */
export function ruleMatches(rule: RuleFilters, event: Pick<MessageEvent, 'chatType' | 'source' | 'payload'>, eventType: CallbackEventType): boolean {
  if (!rule.eventTypes.includes(eventType)) return false;
  if (!rule.chatTypes.includes(callbackChatType(event))) return false;
  if (!rule.sources.includes(event.source)) return false;
  const types: readonly string[] = rule.messageTypes;
  return event.payload.bodies.some((b) => types.includes(b.type));
}

/** Pairs each record of `event` with each enabled rule that accepts it. */
export function routeRecords<R extends RuleFilters & { enabled: boolean }>(
  event: MessageEvent,
  rules: readonly R[],
  newUuid: () => string,
): Array<{ rule: R; record: UnsignedMessageRecord }> {
  const active = rules.filter((r) => r.enabled);
  if (active.length === 0) return [];
  const out: Array<{ rule: R; record: UnsignedMessageRecord }> = [];
  // Each rule gets its own callId: a callId names one callback, i.e. one (record, rule) pair.
  for (const rule of active) {
    for (const record of recordsOf(event, newUuid)) {
      if (ruleMatches(rule, event, record.eventType)) out.push({ rule, record });
    }
  }
  return out;
}
