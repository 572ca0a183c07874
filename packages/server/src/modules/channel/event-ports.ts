/**
 * Storage ports of conversation events and the customer-side calls (contract 6.4): the waiting
 * line and its statistics, receipts, typing, ratings. Implemented in
 * src/storage/repositories/channel-events.ts.
 */
import type { Conversation } from './ports.js';

/** A conversation event as a delivery (no message): written with its push job (transaction.ts). */
export interface EventDeliveryRow {
  conversation: Pick<Conversation, 'id' | 'tenantId' | 'channelId' | 'customerId'>;
  deliveryId: string;
  event: string;
  /** The push body as sent. */
  body: string;
  now: number;
}

export interface QueueStats {
  /** Mean time from opening to closing of the queue's recently closed conversations; null with none. */
  meanHandleMs: number | null;
  /** Agents of the queue who are online. */
  onlineAgents: number;
}

export interface Rating {
  score: number;
  comment: string | null;
  createdAt: number;
}

export interface ConversationEventsRepository {
  /** The queue's waiting conversations in queue order (VIP first, then queue time, then id), at most `limit`. */
  waitingLine(queueId: number, limit: number): Promise<Conversation[]>;
  queueStats(queueId: number): Promise<QueueStats>;
}
