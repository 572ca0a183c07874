/**
 * Tables of the REST channel (Area A). JSON is stored as TEXT, booleans as INTEGER 0/1,
 * timestamps as ms.
 */
import type { Generated } from 'kysely';
import type { ConversationState, DeliveryStatus } from '@parley/protocol';

export interface RestChannelsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  callback_url: string;
  client_id: string;
  /** The Client Secret sealed with the service's secret key (AES-256-GCM). */
  secret_sealed: string;
  /** The Client Secret before the last rotation, sealed, valid until `previous_secret_until` (ms); NULL: no overlap. */
  previous_secret_sealed: Generated<string | null>;
  previous_secret_until: Generated<number | null>;
  agent_queue_id: number | null;
  created_at: number;
  updated_at: number;
  /** JSON array of the conversation events pushed to the callback address (contract 6.4). */
  events: Generated<string>;
}

/** One customer (`from`) of one association, with the profile kept from `ext.visitor`. */
export interface ChannelVisitorsTable {
  id: Generated<number>;
  channel_id: number;
  customer_id: string;
  /** JSON object of the spec 2.2 visitor string fields. */
  profile: string;
  /** JSON array of strings. */
  tags: string;
  created_at: number;
  updated_at: number;
}

export interface ConversationsTable {
  id: Generated<number>;
  tenant_id: number;
  channel_id: number;
  visitor_id: number;
  customer_id: string;
  state: ConversationState;
  queue_id: number;
  agent_id: number | null;
  vip: number;
  /** Position in the waiting queue: VIP first, then this time (set when it (re)enters a queue). */
  queued_at: number;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  last_message_id: number | null;
  /** When the customer was invited to rate it (contract 6.4); a rating needs it. */
  csat_invited_at: Generated<number | null>;
  csat_score: Generated<number | null>;
  csat_comment: Generated<string | null>;
  csat_at: Generated<number | null>;
  /** When the customer was last warned that the conversation is idle. */
  idle_warned_at: Generated<number | null>;
  /** When an agent first got it (opened assigned, accepted, dispatched or transferred to one); reports' handle time starts here. */
  assigned_at: Generated<number | null>;
  /** When an agent first replied (automatic messages aside); reports' first-response time ends here. */
  first_reply_at: Generated<number | null>;
}

/** A skill group's automation (contract 6.4): JSON of AutomationSettings. */
export interface QueueAutomationTable {
  queue_id: number;
  tenant_id: number;
  settings: string;
  updated_at: number;
}

export interface ChannelMessagesTable {
  id: Generated<number>;
  conversation_id: number;
  channel_id: number;
  direction: 'customer' | 'agent';
  msg_id: string;
  agent_id: number | null;
  /** JSON array of bodies. */
  bodies: string;
  /** JSON object: the customer's ext (cards, visitor, routing hints) or {} for agent replies. */
  ext: string;
  /** The customer's `timestamp`, or the reply time for agent messages. */
  timestamp: number;
  created_at: number;
  /** An agent message's receipt from the customer's server: `delivered`, then `read`. */
  receipt: Generated<'delivered' | 'read' | null>;
}

export interface DeliveriesTable {
  /** `dlv_…`; also the `webhook-id` of every attempt. */
  id: string;
  tenant_id: number;
  channel_id: number;
  conversation_id: number;
  /** The agent reply pushed; null for a conversation event. */
  message_id: number | null;
  customer_id: string;
  status: DeliveryStatus;
  /** The exact JSON body pushed on every attempt. */
  body: string;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The conversation event's name (contract 6.4); null for an agent reply. */
  event: Generated<string | null>;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  started_at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  succeeded: number;
}

export interface ChannelMediaTable {
  id: string;
  tenant_id: number;
  filename: string;
  content_type: string;
  size: number;
  created_at: number;
}

export interface ConversationNotesTable {
  id: Generated<number>;
  tenant_id: number;
  conversation_id: number;
  author_id: number | null;
  text: string;
  created_at: number;
}

export interface ConversationLabelsTable {
  conversation_id: number;
  tenant_id: number;
  label: string;
}

/** A canned reply: of the tenant (`owner_id` 0) or of one agent. */
export interface CannedRepliesTable {
  id: Generated<number>;
  tenant_id: number;
  owner_id: number;
  shortcut: string;
  text: string;
  created_at: number;
  updated_at: number;
}

export interface ChannelTables {
  rest_channels: RestChannelsTable;
  channel_visitors: ChannelVisitorsTable;
  conversations: ConversationsTable;
  channel_messages: ChannelMessagesTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  channel_media: ChannelMediaTable;
  queue_automation: QueueAutomationTable;
  conversation_notes: ConversationNotesTable;
  conversation_labels: ConversationLabelsTable;
  canned_replies: CannedRepliesTable;
}
