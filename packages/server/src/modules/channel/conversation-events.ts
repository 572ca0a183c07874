/**
 * The bodies of conversation events (contract 6.4), pure. An event is pushed like an agent reply
 * (a delivery without a message, push.ts), so a receiver gets both in one order, signed alike.
 */
import type { ConversationEventFields, ConversationEventPush, EventAgent, IntegratorEventName } from '@parley/protocol';
import type { AgentInfo, Conversation } from './ports.js';

/** One event to push: its name and its own fields. */
export type PendingEvent = { [E in IntegratorEventName]: { name: E; fields: ConversationEventFields[E] } }[IntegratorEventName];

export const eventAgent = (agent: Pick<AgentInfo, 'nickname' | 'avatar'>): EventAgent => ({ user_nickname: agent.nickname, avatar: agent.avatar });

export function buildEventPush(conv: Pick<Conversation, 'tenantId' | 'channelId' | 'id' | 'customerId'>, event: PendingEvent, now: number): ConversationEventPush {
  return {
    event: event.name,
    to: conv.customerId,
    tenant_id: conv.tenantId,
    channel_id: conv.channelId,
    conversation_id: conv.id,
    timestamp: now,
    ...event.fields,
  } as ConversationEventPush;
}

/**
 * The estimated wait of a position in a queue: the recent mean handling time spread over the
 * agents serving the queue, or null when either is unknown.
 */
export function estimatedWaitSeconds(position: number, meanHandleMs: number | null, agents: number): number | null {
  if (meanHandleMs === null || agents <= 0) return null;
  return Math.max(0, Math.round((position * meanHandleMs) / agents / 1000));
}
