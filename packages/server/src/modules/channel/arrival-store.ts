/**
 * The steps accept.ts writes a customer message with: the `arrivals` of a channel transaction
 * (the unit of work's group commit puts concurrent messages in one). Whatever the adapter
 * (storage/repositories/channel-arrivals.ts) does for speed stays behind these methods: reading a
 * tenant once per transaction, precompiled statements, and on a single writer answering a known
 * customer's arrival from memory (then `appendMessage` is the one that finds a reused msg_id).
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
 * The steps of one message inside its transaction. Agent loads and locks (AgentClaims) are read
 * in the same transaction, so the claim at open holds until it commits.
 */
export interface ArrivalTransaction extends AgentClaims {
  /** Skill groups and agents, read in this transaction. */
  readonly directory: RoutingDirectory;
  /** The tenant (undefined: none). */
  tenant(id: number): Promise<TenantInfo | undefined>;
  /** The msg_id, the visitor and their open conversation, in one read. */
  arrival(input: IncomingMessage): Promise<Arrival>;
  /** The conversation an earlier message with this msg_id went to (the message is a duplicate). */
  duplicateOf(input: IncomingMessage): Promise<Conversation>;
  /** Stores a new visitor; answers its id. */
  insertVisitor(input: IncomingMessage, tags: string[]): Promise<number>;
  updateVisitor(id: number, profile: VisitorProfile, tags: string[], now: number): Promise<void>;
  openConversation(row: NewConversation): Promise<Conversation>;
  /**
   * Stores the message and makes it the conversation's last (and sets its VIP flag when given);
   * answers the conversation, or undefined when the msg_id was taken already (a duplicate the
   * arrival read could not tell).
   */
  appendMessage(conversationId: number, input: IncomingMessage, vip: boolean | undefined): Promise<Conversation | undefined>;
}
