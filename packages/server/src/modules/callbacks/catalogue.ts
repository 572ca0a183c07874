/**
 * The event catalogue (contract 6.7b): records of IM operations other than messages, in Easemob's
 * shapes (protocol callbacks-catalogue.ts), and which rules receive them: those whose
 * `event_types` list the event's type. The other filters (chat types, message types, sources)
 * are about messages and do not apply. Pure: the uuid source is passed in.
 */
import {
  CALLBACK_SECURITY_VERSION,
  callbackChannelJid,
  callbackUserJid,
  type GroupReadAckCallbackRecord,
  type ReadAckCallbackRecord,
  type RecallCallbackRecord,
  type RosterCallbackRecord,
  type UserStatusCallbackRecord,
} from '@parley/protocol';
import type { GroupOpEvent, ImOperationEvent, ReadAckEvent, RecallEvent, RosterEvent, UserStatusEvent } from '../im/operation-events.js';
import { groupOpRecords, type GroupOpRecord } from './group-ops.js';


export type UnsignedCatalogueRecord =
  | Omit<RosterCallbackRecord, 'security'>
  | Omit<UserStatusCallbackRecord, 'security'>
  | Omit<RecallCallbackRecord, 'security'>
  | Omit<ReadAckCallbackRecord, 'security'>
  | Omit<GroupReadAckCallbackRecord, 'security'>;

const signed = (appkey: string) => ({ appkey, securityVersion: CALLBACK_SECURITY_VERSION });

function roster(e: RosterEvent, callId: string): Omit<RosterCallbackRecord, 'security'> {
  const payload: RosterCallbackRecord['payload'] =
    e.operation === 'ban' || e.operation === 'allow'
      ? { operation: e.operation, status: { error_code: 'ok' } }
      : { ...(e.operation === 'add' ? { reason: e.reason ?? '' } : {}), operation: e.operation };
  return {
    callId,
    eventType: 'chat',
    timestamp: e.timestamp,
    chat_type: 'roster',
    from: callbackUserJid(e.appkey, e.from),
    to: e.to,
    msg_id: e.msgId,
    payload,
    ...signed(e.appkey),
  };
}

function userStatus(e: UserStatusEvent, callId: string): Omit<UserStatusCallbackRecord, 'security'> {
  return {
    callId,
    eventType: 'userStatus',
    timestamp: e.timestamp,
    user: `${callbackUserJid(e.appkey, e.username)}/${e.resource}`,
    status: e.status,
    reason: e.reason,
    os: e.os,
    ip: e.ip,
    version: e.version,
    ...signed(e.appkey),
  };
}

function recall(e: RecallEvent, callId: string): Omit<RecallCallbackRecord, 'security'> {
  const { recalled } = e;
  return {
    callId,
    eventType: 'chat',
    timestamp: e.timestamp,
    chat_type: 'recall',
    ...(recalled.chatType === 'chat' ? {} : { group_id: recalled.to }),
    from: recalled.from,
    to: recalled.to,
    msg_id: e.msgId,
    recall_id: recalled.msgId,
    payload: { ext: {}, ack_message_id: recalled.msgId, bodies: [] },
    ...signed(e.appkey),
  };
}

function readAck(e: ReadAckEvent, callId: string): Omit<ReadAckCallbackRecord, 'security'> | Omit<GroupReadAckCallbackRecord, 'security'> {
  const base = { callId, eventType: 'chat', timestamp: e.timestamp, chat_type: 'read_ack', from: e.from, to: e.to, msg_id: e.msgId, channel_channel: callbackChannelJid(e.appkey, e.to) } as const;
  if (e.chatType === 'chat') return { ...base, payload: { ext: {}, ack_message_id: e.ackMessageId, bodies: [] }, ...signed(e.appkey) };
  return {
    ...base,
    channel_user: callbackUserJid(e.appkey, e.from),
    content_type: 'chat:ack:read',
    payload: { ext: {}, ack_message_id: e.ackMessageId, msg_config: { allow_group_ack: true }, type: 'read_ack' },
    writed_channel: false,
    ...signed(e.appkey),
  };
}

/** The record of one event other than a group operation, with `callId`. */
export function catalogueRecord(event: Exclude<ImOperationEvent, GroupOpEvent>, callId: string): UnsignedCatalogueRecord {
  switch (event.kind) {
    case 'roster':
      return roster(event, callId);
    case 'userStatus':
      return userStatus(event, callId);
    case 'recall':
      return recall(event, callId);
    case 'read_ack':
      return readAck(event, callId);
  }
}

/**
 * Pairs the event's records (one, or a group operation's: group-ops.ts) with each enabled rule
 * whose `event_types` list its type; each pair has its own callId.
 */
export function routeOperation<R extends { eventTypes: readonly string[]; enabled: boolean }>(
  event: ImOperationEvent,
  rules: readonly R[],
  newUuid: () => string,
): Array<{ rule: R; record: UnsignedCatalogueRecord | GroupOpRecord }> {
  const listening = rules.filter((r) => r.enabled && r.eventTypes.includes(event.kind));
  if (event.kind === 'group_op_event') return listening.flatMap((rule) => groupOpRecords(event.operation, newUuid).map((record) => ({ rule, record })));
  return listening.map((rule) => ({ rule, record: catalogueRecord(event, `${event.appkey}_${newUuid()}`) }));
}
