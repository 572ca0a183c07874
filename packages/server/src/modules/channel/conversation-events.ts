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

/** Every place up to this one is told each move of its line (position 1 is the next served). */
export const POSITION_NOTICE_HEAD = 10;
/** Beyond the head, a waiting conversation is told once per this many places it moves. */
export const POSITION_NOTICE_STEP = 10;

/**
 * Whether a waiting conversation whose place went from `before` to `after` (one conversation
 * left the line ahead of it, or joined ahead of it) hears `position_changed`: always within the
 * first POSITION_NOTICE_HEAD places, and further back only when it crosses into another block of
 * POSITION_NOTICE_STEP places (to 30 from 31, to 21 from 20). A line of 100 moving up one place
 * is then 19 pushes, not 100, and a customer far back still sees it move.
 */
export function positionNoticeDue(before: number, after: number): boolean {
  if (before === after) return false;
  if (after <= POSITION_NOTICE_HEAD) return true;
  return Math.floor((before - 1) / POSITION_NOTICE_STEP) !== Math.floor((after - 1) / POSITION_NOTICE_STEP);
}
