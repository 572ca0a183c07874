/**
 * Callback records (spec 2.4, contract 4.5) built from an accepted message, the rule filters that
 * pick which rules receive which records, and the signed HTTP request of one record. Pure: the
 * uuid source and the time are passed in.
 */
import {
  CALLBACK_BODY_MD5_HEADER,
  CALLBACK_SECURITY_VERSION,
  callbackSecurity,
  md5Hex,
  standardWebhookHeaders,
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

/** A record before signing: `security` depends on the rule's secret at send time. */
export type UnsignedRecord = Omit<CallbackRecord, 'security' | 'payload'> & { payload: MessageEvent['payload'] };

export function callbackChatType(event: Pick<MessageEvent, 'chatType'>): CallbackChatType {
  return event.chatType === 'chat' ? 'chat' : 'groupchat';
}

/**
 * The records one message produces, before rule filters: `chat` for the message, then one
 * `chat_offline` per offline receiver with `to` = that receiver (chat rooms have none).
 */
export function recordsOf(event: MessageEvent, newUuid: () => string): UnsignedRecord[] {
  const chatType = callbackChatType(event);
  const base = (eventType: CallbackEventType, to: string): UnsignedRecord => ({
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
): Array<{ rule: R; record: UnsignedRecord }> {
  const active = rules.filter((r) => r.enabled);
  if (active.length === 0) return [];
  const out: Array<{ rule: R; record: UnsignedRecord }> = [];
  // Each rule gets its own callId: a callId names one callback, i.e. one (record, rule) pair.
  for (const rule of active) {
    for (const record of recordsOf(event, newUuid)) {
      if (ruleMatches(rule, event, record.eventType)) out.push({ rule, record });
    }
  }
  return out;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The exact bytes and headers of one POST: `security` with the rule's secret, the body MD5 and
 * the Standard Webhooks headers (`webhook-id` = callId, timestamp in seconds at send time).
 */
export function signedRequest(record: UnsignedRecord, secret: string, nowMs: number): SignedRequest {
  const body = signedBody(record, callbackSecurity(record.callId, secret, record.timestamp));
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', [CALLBACK_BODY_MD5_HEADER]: md5Hex(body) };
  return { body, headers: standardWebhookHeaders(secret, record.callId, Math.floor(nowMs / 1000), body, headers) };
}

/**
 * The JSON of `{ ...record, security }`, byte for byte: the record's JSON with `security` added
 * as its last member, without copying the record into a new object first (once per attempt).
 * A record has no `security` of its own (UnsignedRecord omits it); one read back from storage
 * with one anyway takes the copy, so that the member is replaced rather than written twice.
 */
export function signedBody(record: UnsignedRecord, security: string): string {
  if (Object.hasOwn(record, 'security')) return JSON.stringify({ ...record, security });
  const json = JSON.stringify(record);
  const member = `"security":${JSON.stringify(security)}`;
  return json === '{}' ? `{${member}}` : `${json.slice(0, -1)},${member}}`;
}
