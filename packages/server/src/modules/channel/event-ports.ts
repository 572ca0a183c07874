/**
 * Storage ports of conversation events and the customer-side calls (contract 6.4): the waiting
 * line and its statistics, receipts, typing, ratings. Implemented in
 * src/storage/repositories/channel-events.ts.
 */
import type { ReceiptStatus } from '@parley/protocol';
import type { AgentLoad, Conversation } from './ports.js';

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
  /** The customer's open (waiting or processing) conversation on the association. */
  openConversationOf(channelId: number, customerId: string): Promise<Conversation | undefined>;
  /**
   * Sets the receipt of the customer's agent messages named by `msgIds` on the association: a
   * `delivered` only where there was none, a `read` over none or `delivered` (never back). Answers
   * the messages that changed.
   */
  markReceipts(channelId: number, customerId: string, msgIds: readonly string[], status: ReceiptStatus): Promise<Array<{ conversationId: number; msgId: string }>>;
  /**
   * Records the rating if the conversation is the customer's on the association, closed, invited
   * and not yet rated; false otherwise (nothing written).
   */
  rate(conversationId: number, channelId: number, customerId: string, rating: Rating): Promise<boolean>;
  /** The queue's waiting conversations in queue order (VIP first, then queue time, then id), at most `limit`. */
  waitingLine(tenantId: number, queueId: number, limit: number): Promise<Conversation[]>;
  /**
   * The place `conv` has in its queue's waiting line (1: the next served): one more than the
   * waiting conversations ahead of it in queue order, however long the line.
   */
  placeInLine(conv: Pick<Conversation, 'id' | 'tenantId' | 'queueId' | 'vip' | 'queuedAt'>): Promise<number>;
  queueStats(queueId: number): Promise<QueueStats>;
  /** The tenant's online agents, of any skill group, with their load (the re-offer of automation). */
  tenantAgentLoads(tenantId: number): Promise<AgentLoad[]>;
}
