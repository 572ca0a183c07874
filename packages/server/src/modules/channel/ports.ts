/**
 * Storage ports of the REST channel (the customer-message write has its own: arrival-store.ts).
 * Each method is atomic; the Kysely implementations live in src/storage/repositories/channel*.ts
 * and work on both engines.
 */
import type { ConversationState, DeliveryStatus, IntegratorEventName, MessageBody, VISITOR_STRING_FIELDS } from '@parley/protocol';
import type { SecretOverlap } from '../../kernel/secret-overlap.js';
import type { MediaRepository as StoreRepository } from '../media/ports.js';

export interface Association {
  id: number;
  tenantId: number;
  name: string;
  callbackUrl: string;
  clientId: string;
  secretSealed: string;
  /** The sealed Client Secret before the last rotation and when it stops working (contract 6.6). */
  previousSecret: SecretOverlap<string> | null;
  agentQueueId: number | null;
  /** The conversation events pushed to the callback address (contract 6.4); default none. */
  events: IntegratorEventName[];
  createdAt: number;
  updatedAt: number;
}

export interface AssociationsRepository {
  create(input: Omit<Association, 'id' | 'previousSecret'>): Promise<Association>;
  get(tenantId: number, id: number): Promise<Association | undefined>;
  findByClientId(clientId: string): Promise<Association | undefined>;
  list(tenantId: number): Promise<Association[]>;
  update(tenantId: number, id: number, patch: Partial<Pick<Association, 'name' | 'callbackUrl' | 'agentQueueId' | 'secretSealed' | 'previousSecret' | 'events'>>, now: number): Promise<Association | undefined>;
  delete(tenantId: number, id: number): Promise<boolean>;
}

/** Skill groups and agents as routing sees them (read from the accounts tables). */
export interface RoutingDirectory {
  agentByUsername(tenantId: number, username: string): Promise<AgentInfo | undefined>;
  agent(tenantId: number, id: number): Promise<AgentInfo | undefined>;
  queueByName(tenantId: number, name: string): Promise<QueueInfo | undefined>;
  queue(tenantId: number, id: number): Promise<QueueInfo | undefined>;
  queueIdsOfAgent(agentId: number): Promise<number[]>;
}

export interface AgentInfo {
  id: number;
  tenantId: number;
  username: string;
  nickname: string;
  avatar: string | null;
  role: 'admin' | 'agent' | 'system_admin';
  status: 'online' | 'busy' | 'offline';
  maxSessions: number;
}

export interface TenantInfo {
  id: number;
  edition: 'flagship' | 'standard';
  defaultQueueId: number;
  vipTags: string[];
}

export interface QueueInfo {
  id: number;
  tenantId: number;
  name: string;
}

export type VisitorField = (typeof VISITOR_STRING_FIELDS)[number];
export type VisitorProfile = Partial<Record<VisitorField, string>>;

export interface Conversation {
  id: number;
  tenantId: number;
  channelId: number;
  visitorId: number;
  customerId: string;
  state: ConversationState;
  queueId: number;
  agentId: number | null;
  vip: boolean;
  queuedAt: number;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface StoredMessage {
  id: number;
  conversationId: number;
  channelId: number;
  direction: 'customer' | 'agent';
  msgId: string;
  agentId: number | null;
  bodies: MessageBody[];
  ext: Record<string, unknown>;
  timestamp: number;
  createdAt: number;
  /** An agent message's receipt from the customer's server (contract 6.4). */
  receipt?: 'delivered' | 'read' | null;
}

/** An online agent of a queue: its id, how many conversations it may process at once, and how many it is processing. */
export interface AgentLoad {
  id: number;
  max: number;
  load: number;
}

/** Storage's side of agent assignment: it answers loads and locks rows; modules/channel/assignment.ts decides. */
export interface AgentClaims {
  /** The online agents of a queue with their load. */
  agentLoads(queueId: number): Promise<AgentLoad[]>;
  /**
   * Locks the agent's row until the transaction ends (a row lock on PostgreSQL, the write lock on
   * SQLite) and answers its load then; undefined when there is no such agent. Concurrent claims of
   * one agent on several instances thus queue on the row, and each sees the others' commits.
   */
  lockAgent(agentId: number): Promise<AgentLoad | undefined>;
}

/** A conversation's move to another state, agent or queue. */
export interface ConversationMove {
  state: ConversationState;
  agentId: number | null;
  queueId?: number;
  requeueAt?: number;
}

/** One transaction in which assignment.ts claims an agent and moves a conversation to them. */
export interface AssignmentTransaction extends AgentClaims {
  /** Moves the conversation if it is still in a `from` state; false when it was not. */
  move(id: number, from: ConversationState[], to: ConversationMove, now: number): Promise<boolean>;
}

export interface ConversationFilter {
  state?: ConversationState;
  queueId?: number;
  agentId?: number;
  customerId?: string;
  /** Lower-cased text a `txt` body of one of its messages contains (compared case-insensitively). */
  text?: string;
  /** A label of the conversation, or a tag of its customer. */
  label?: string;
  /** Bounds of `updated_at`, both inclusive (epoch ms). */
  updatedFrom?: number;
  updatedTo?: number;
  /** An agent's view: only conversations assigned to `agentId` or in one of `queueIds`. */
  visibleTo?: { agentId: number; queueIds: number[] };
  /** Only VIP conversations (true) or only the others (false). */
  vip?: boolean;
  /** Only conversations not assigned to this agent (held by another or by nobody). */
  notAgentId?: number;
  /** Only waiting conversations queued at or before this time (epoch ms). */
  queuedBefore?: number;
}

/** The inbox's views over the open conversations a filter keeps (`me`: the caller). */
export interface ConversationCountsRow {
  waiting: number;
  mine: number;
  team: number;
}

/**
 * The orders of the conversation list: `queue` (waiting ones: VIP first, then by queue time, then
 * id), `waited` (by queue time, then id: longest waiting first), `newest` (by id, highest first:
 * most recently opened) and `recent` (by `updated_at`, newest first, then id, highest first).
 */
export type ConversationOrder = 'queue' | 'waited' | 'newest' | 'recent';

/** A row of the list with the keys of its order: a page starts after one (keyset paging). */
export interface ConversationListPosition {
  id: number;
  vip: boolean;
  queuedAt: number;
  updatedAt: number;
}

export interface ConversationPageRequest {
  order: ConversationOrder;
  limit: number;
  after?: ConversationListPosition;
}

export interface ConversationDetails {
  conversation: Conversation;
  visitor: { customerId: string; profile: VisitorProfile; tags: string[] };
  agent: AgentInfo | undefined;
  lastMessage: (StoredMessage & { delivery: { id: string; status: DeliveryStatus; lastError: string | null } | null }) | undefined;
  /** The customer's satisfaction rating (contract 6.4). */
  rating: { score: number; comment: string | null; createdAt: number } | null;
  labels: string[];
}

export interface ConversationsRepository {
  get(tenantId: number, id: number): Promise<Conversation | undefined>;
  details(tenantId: number, ids: number[]): Promise<ConversationDetails[]>;
  /** The conversations that pass `filter`, in the page's order, from after `page.after`, at most `page.limit`. */
  list(tenantId: number, filter: ConversationFilter, page: ConversationPageRequest): Promise<ConversationListPosition[]>;
  /** Waiting, in progress assigned to `me`, and in progress assigned to others, among those `filter` keeps: one query. */
  counts(tenantId: number, filter: ConversationFilter, me: number): Promise<ConversationCountsRow>;
  /** Moves a conversation if it is still in a `from` state; false when it was not. */
  assign(id: number, from: ConversationState[], to: ConversationMove, now: number): Promise<boolean>;
  /** The online agents of a queue with their load (outside any transaction). */
  agentLoads(queueId: number): Promise<AgentLoad[]>;
  /** The head of a queue's waiting line. */
  nextWaiting(tenantId: number, queueId: number): Promise<number | undefined>;
  history(conversationId: number): Promise<Array<StoredMessage & { delivery: { id: string; status: DeliveryStatus; lastError: string | null } | null }>>;
  visitorOf(conversationId: number): Promise<{ customerId: string; profile: VisitorProfile; tags: string[] } | undefined>;
}

export interface Delivery {
  id: string;
  tenantId: number;
  channelId: number;
  conversationId: number;
  /** The agent reply pushed; null for a conversation event. */
  messageId: number | null;
  msgId: string | null;
  /** The conversation event pushed (contract 6.4); null for an agent reply. */
  event: string | null;
  /** The agent who sent the reply. */
  agentId: number | null;
  customerId: string;
  status: DeliveryStatus;
  body: string;
  attempts: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  succeeded: boolean;
}

export interface DeliveriesRepository {
  get(id: string): Promise<Delivery | undefined>;
  list(channelId: number, status: DeliveryStatus | undefined, limit: number): Promise<Array<Delivery & { attemptLog: DeliveryAttempt[] }>>;
}

export interface MediaRecord {
  id: string;
  tenantId: number;
  filename: string;
  contentType: string;
  size: number;
  createdAt: number;
}

/** The tenant's media: the store's records, by tenant, and their rows by id. */
export interface MediaRepository extends StoreRepository<number> {
  get(id: string): Promise<MediaRecord | undefined>;
}
