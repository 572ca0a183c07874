/**
 * What a channel transaction holds (the unit of work's `channel` and `jobs`): the steps each of the
 * channel's atomic writes needs, run in one transaction with the jobs they cause.
 */
import type { DeliveryStatus, MessageBody } from '@parley/protocol';
import type { TransactionJobs } from '../jobs/ports.js';
import type { ArrivalTransaction } from './arrival-store.js';
import type { EventDeliveryRow } from './event-ports.js';
import type { AssignmentTransaction, Conversation, DeliveryAttempt, StoredMessage } from './ports.js';

export interface AgentReplyRow {
  conversation: Conversation;
  /** Null for an automatic message (`ext.system`). */
  agentId: number | null;
  msgId: string;
  bodies: MessageBody[];
  /** Stored with the message ({} for an agent's reply, `{system: true}` for an automatic one). */
  ext?: Record<string, unknown>;
  deliveryId: string;
  /** The push body as sent (spec 2.3). */
  pushBody: string;
  now: number;
}

export interface ChannelWrites {
  /** A customer message's steps (accept.ts). */
  readonly arrivals: ArrivalTransaction;
  /** An agent's load under its row lock, and a conversation's move (assignment.ts). */
  readonly assignment: AssignmentTransaction;
  /** Stores an agent reply with its pending delivery and makes it the conversation's last message. */
  storeAgentReply(reply: AgentReplyRow): Promise<StoredMessage>;
  /** The agent's processing conversations wait in their queues again, keeping their queue time; answers which moved. */
  requeueAgent(agentId: number, now: number): Promise<Array<{ id: number; queueId: number }>>;
  /** Stores a conversation event as a pending delivery without a message (contract 6.4). */
  storeEvent(row: EventDeliveryRow): Promise<void>;
  /** Records that the customer was invited to rate the conversation (a rating needs it). */
  inviteRating(conversationId: number, now: number): Promise<void>;
  /** Sets a delivery back to pending; false when there is no such delivery. */
  requeueDelivery(id: string, now: number): Promise<boolean>;
  /** Records a push attempt and the delivery's next state (a delivery out of retries, with its operator event). */
  recordAttempt(id: string, attempt: Omit<DeliveryAttempt, 'attempt'>, next: { status: DeliveryStatus; nextAttemptAt: number | null }, now: number): Promise<DeliveryAttempt>;
}

export interface ChannelTransaction {
  readonly channel: ChannelWrites;
  readonly jobs: TransactionJobs;
}
