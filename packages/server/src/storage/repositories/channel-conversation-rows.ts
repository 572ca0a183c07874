/** Rows of conversations and messages as the channel ports see them. */
import type { Kysely, Selectable } from 'kysely';
import type { DeliveryStatus, MessageBody } from '@parley/protocol';
import type { Conversation, StoredMessage } from '../../modules/channel/ports.js';
import type { ChannelMessagesTable, ConversationsTable } from '../tables/channel.js';
import type { Database } from '../schema.js';

/** A conversation as the ports see it; `updatedAt` overrides the row's (a message just touched it). */
export const toConversation = (row: Selectable<ConversationsTable>, updatedAt = row.updated_at): Conversation => ({
  id: row.id,
  tenantId: row.tenant_id,
  channelId: row.channel_id,
  visitorId: row.visitor_id,
  customerId: row.customer_id,
  state: row.state,
  queueId: row.queue_id,
  agentId: row.agent_id,
  vip: row.vip === 1,
  queuedAt: row.queued_at,
  createdAt: row.created_at,
  updatedAt,
  closedAt: row.closed_at,
});

export const toMessage = (row: Selectable<ChannelMessagesTable>): StoredMessage => ({
  id: row.id,
  conversationId: row.conversation_id,
  channelId: row.channel_id,
  direction: row.direction,
  msgId: row.msg_id,
  agentId: row.agent_id,
  bodies: JSON.parse(row.bodies) as MessageBody[],
  ext: JSON.parse(row.ext) as Record<string, unknown>,
  timestamp: row.timestamp,
  createdAt: row.created_at,
  receipt: row.receipt ?? null,
});

type Delivered = StoredMessage & { delivery: { id: string; status: DeliveryStatus; lastError: string | null } | null };

export async function withDeliveries(db: Kysely<Database>, rows: Selectable<ChannelMessagesTable>[]): Promise<Delivered[]> {
  const agentIds = rows.filter((r) => r.direction === 'agent').map((r) => r.id);
  const deliveries = agentIds.length
    ? await db.selectFrom('deliveries').select(['id', 'status', 'message_id', 'last_error']).where('message_id', 'in', agentIds).execute()
    : [];
  const byMessage = new Map(deliveries.map((d) => [d.message_id, { id: d.id, status: d.status, lastError: d.last_error }]));
  return rows.map((row) => ({ ...toMessage(row), delivery: byMessage.get(row.id) ?? null }));
}
