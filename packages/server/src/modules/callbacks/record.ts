/**
 * Callback records (spec 2.4, contract 4.5) built from an accepted message, and the rule filters
 * that pick which rules receive which records. Pure: the uuid source is passed in. The signed
 * request of a record is built in record-signing.ts.
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

/** Which records a rule receives: each list must contain the record's value (message types: any body's type). */
export interface RuleFilters {
  eventTypes: CallbackEventType[];
  chatTypes: CallbackChatType[];
  messageTypes: CallbackMessageType[];
  sources: CallbackSource[];
}

/** A message record before signing: `security` depends on the rule's secret at send time. */
export type UnsignedMessageRecord = Omit<CallbackRecord, 'security' | 'payload'> & { payload: MessageEvent['payload'] };

/** A group or chat-room operation record (`group_op_event`, Easemob's shape; group-ops.ts), before signing. */
export interface GroupOpRecord {
  callId: string;
  payload?: Record<string, unknown>;
  appkey: string;
  id: string;
  type: 'GROUP' | 'CHATROOM';
  event: 'group_op_event';
  operation: 'CREATE' | 'DELETE' | 'JOIN' | 'LEAVE' | 'UPDATE';
  operator: string;
  member_count?: number;
  timestamp: number;
}

/** Any record before signing. */
export type UnsignedRecord = UnsignedMessageRecord | GroupOpRecord;

/** What the delivery log and the exception store index a record by. */
export interface RecordFacts {
  eventType: CallbackEventType;
  /** '' for an operation record. */
  msgId: string;
  /** The sender, or the operator. */
  from: string;
  /** The receiver, or the group. */
  to: string;
}

export function recordFacts(record: UnsignedRecord): RecordFacts {
  if ('event' in record) return { eventType: record.event, msgId: '', from: record.operator, to: record.id };
  return { eventType: record.eventType, msgId: record.msg_id, from: record.from, to: record.to };
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
  const base = (eventType: CallbackEventType, to: string): UnsignedMessageRecord => ({
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
