/**
 * The port accept.ts writes a customer message through. The adapter (storage/repositories/
 * channel-arrivals.ts) groups concurrent messages into one transaction and hands each message's
 * decision sequence a transaction object whose steps are the statements that sequence needs.
 * Whatever the adapter does for speed (reading a tenant once per batch, remembering known
 * customers on a single writer, precompiled statements) stays behind these methods.
 */
import type { MessageBody } from '@parley/protocol';
import type { AgentClaims, Conversation, RoutingDirectory, TenantInfo, VisitorProfile } from './ports.js';
import type { RoutingHints } from './routing.js';

export interface IncomingMessage {
  tenantId: number;
  channelId: number;
  customerId: string;
  msgId: string;
  bodies: MessageBody[];
  ext: Record<string, unknown>;
  timestamp: number;
  /** Profile fields given with this message; merged over the stored ones. */
  profile: VisitorProfile;
  /** Tags given with this message (replace the stored ones), or undefined to keep them. */
  tags: string[] | undefined;
  /** The association's default queue (routing rule 4), or null. */
  associationQueueId: number | null;
  /** Where the customer asks to be routed (`ext`'s routing fields). */
  hints: RoutingHints;
  now: number;
}

export interface AcceptedMessage {
  duplicate: boolean;
  msgId: string;
  conversation: Conversation;
  /** True when this message opened the conversation. */
  opened: boolean;
}

/** A customer as stored: the merge of every message's profile, and the last tags given. */
export interface StoredVisitor {
  id: number;
  profile: VisitorProfile;
  tags: string[];
}

/** What is stored about a message's customer and msg_id, read in one go. */
export interface Arrival {
  /** The conversation an earlier message with this msg_id went to (this one is a duplicate), or null. */
  seenConversationId: number | null;
  visitor: StoredVisitor | undefined;
  /** The customer's conversation that is not closed, if any. */
  open: Conversation | undefined;
}

/**
 * A known customer's open conversation as remembered: the visitor's profile and tags as stored,
 * and the conversation as it was learnt. Its bookkeeping (`updatedAt`, the last message) is not
 * kept current: a message changes only those, and accept.ts reads neither from here.
 */
export interface KnownArrival {
  readonly profile: VisitorProfile;
  readonly tags: string[];
  readonly conversation: Conversation;
}

/** A new conversation's row. */
export interface NewConversation {
  tenantId: number;
  channelId: number;
  visitorId: number;
  customerId: string;
  state: 'waiting' | 'processing';
  queueId: number;
  agentId: number | null;
  vip: boolean;
  now: number;
}

/**
 * The steps of one message inside the batch's transaction. Agent loads and locks (AgentClaims)
 * are read in the same transaction, so the claim at open holds until it commits.
 */
export interface ArrivalTransaction extends AgentClaims {
  /** Skill groups and agents, read in this transaction. */
  readonly directory: RoutingDirectory;
  /** The tenant (undefined: none); answers at once when this batch read it already. */
  tenant(id: number): TenantInfo | undefined | Promise<TenantInfo | undefined>;
  /**
   * Whether this store remembers known customers' open conversations (a single writer does):
   * only then are `knownArrival` and `remember` used.
   */
  readonly remembers: boolean;
  /** The customer's open conversation if it is remembered and still valid in this transaction. */
  knownArrival(channelId: number, customerId: string): Promise<KnownArrival | undefined>;
  /** Remembers the customer's open conversation as it now is, once this batch has committed. */
  remember(channelId: number, customerId: string, arrival: KnownArrival): void;
  /** The msg_id, the visitor and their open conversation, in one read. */
  arrival(input: IncomingMessage): Promise<Arrival>;
  /** A conversation by id (the one a duplicate went to). */
  conversation(id: number): Promise<Conversation>;
  /** Stores a new visitor; answers its id. */
  insertVisitor(input: IncomingMessage, tags: string[]): Promise<number>;
  updateVisitor(id: number, profile: VisitorProfile, tags: string[], now: number): Promise<void>;
  openConversation(row: NewConversation): Promise<Conversation>;
  /** Stores the message and makes it the conversation's last (and sets its VIP flag when given); answers the conversation. */
  appendMessage(conversationId: number, input: IncomingMessage, vip: boolean | undefined): Promise<Conversation>;
  /** Stores the message unless its msg_id was seen before (then undefined); answers its id. */
  insertMessageIfNew(conversationId: number, input: IncomingMessage): Promise<number | undefined>;
  /** Makes the message the conversation's last, without reading the conversation back. */
  touchConversation(conversationId: number, messageId: number, now: number): Promise<unknown>;
}

export interface ArrivalStore {
  /**
   * Answers a function that runs `step` for a message inside a group-committed write and settles
   * once that write has committed. A write that meets a concurrent one's unique key (the same
   * visitor, open conversation or msg_id) is run again, and then finds their rows. Called once.
   */
  inBatches(step: (tx: ArrivalTransaction, input: IncomingMessage) => Promise<AcceptedMessage>): (input: IncomingMessage) => Promise<AcceptedMessage>;
}
