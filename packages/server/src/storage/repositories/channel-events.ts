/**
 * Conversation events and the customer-side calls (modules/channel/event-ports.ts): the waiting
 * line, its statistics, and an event stored as a delivery without a message.
 */
import type { Kysely } from 'kysely';
import type { ConversationEventsRepository, EventDeliveryRow } from '../../modules/channel/event-ports.js';
import type { Conversation } from '../../modules/channel/ports.js';
import type { Database } from '../schema.js';
import { limitParam } from '../precompiled.js';
import { toConversation } from './channel-conversation-rows.js';

/** Closed conversations the mean handling time is taken over. */
const STATS_SAMPLE = 50;

export function kyselyConversationEventsRepository(db: Kysely<Database>): ConversationEventsRepository {
  return {
    waitingLine: (tenantId, queueId, limit) => waitingLine(db, tenantId, queueId, limit),
    placeInLine: (conv) => placeInLine(db, conv),
    async openConversationOf(channelId, customerId) {
      const row = await db.selectFrom('conversations').selectAll().where('channel_id', '=', channelId).where('customer_id', '=', customerId).where('state', '<>', 'closed').executeTakeFirst();
      return row && toConversation(row);
    },
    async markReceipts(channelId, customerId, msgIds, status) {
      const rows = await db
        .updateTable('channel_messages')
        .set({ receipt: status })
        .where('channel_id', '=', channelId)
        .where('direction', '=', 'agent')
        .where('msg_id', 'in', [...msgIds])
        .where('conversation_id', 'in', (eb) => eb.selectFrom('conversations').select('id').where('channel_id', '=', channelId).where('customer_id', '=', customerId))
        .where((eb) => (status === 'read' ? eb.or([eb('receipt', 'is', null), eb('receipt', '=', 'delivered')]) : eb('receipt', 'is', null)))
        .returning(['conversation_id', 'msg_id'])
        .execute();
      return rows.map((r) => ({ conversationId: r.conversation_id, msgId: r.msg_id }));
    },
    async rate(conversationId, channelId, customerId, rating) {
      const result = await db
        .updateTable('conversations')
        .set({ csat_score: rating.score, csat_comment: rating.comment, csat_at: rating.createdAt })
        .where('id', '=', conversationId)
        .where('channel_id', '=', channelId)
        .where('customer_id', '=', customerId)
        .where('state', '=', 'closed')
        .where('csat_invited_at', 'is not', null)
        .where('csat_score', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async tenantAgentLoads(tenantId) {
      const rows = await db
        .selectFrom('users as u')
        .select((eb) => [
          'u.id as id',
          'u.max_sessions as max',
          eb.selectFrom('conversations as c').select(eb.fn.countAll<number>().as('n')).whereRef('c.agent_id', '=', 'u.id').where('c.state', '=', 'processing').as('load'),
        ])
        .where('u.tenant_id', '=', tenantId)
        .where('u.status', '=', 'online')
        .execute();
      return rows.map((r) => ({ id: r.id, max: r.max, load: Number(r.load ?? 0) }));
    },
    async queueStats(queueId) {
      const recent = await db
        .selectFrom('conversations')
        .select(['created_at', 'closed_at'])
        .where('queue_id', '=', queueId)
        .where('state', '=', 'closed')
        .orderBy('closed_at', 'desc')
        .limit(limitParam(STATS_SAMPLE))
        .execute();
      const spans = recent.filter((r) => r.closed_at !== null).map((r) => Number(r.closed_at) - Number(r.created_at));
      const online = await db
        .selectFrom('agent_queues as q')
        .innerJoin('users as u', 'u.id', 'q.user_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('q.queue_id', '=', queueId)
        .where('u.status', '=', 'online')
        .executeTakeFirst();
      return { meanHandleMs: spans.length ? spans.reduce((a, b) => a + b, 0) / spans.length : null, onlineAgents: Number(online?.n ?? 0) };
    },
  };
}

/**
 * A queue's waiting line in its order (VIPs first, then by time queued, then id): a range of the
 * index `conversations_queue (tenant_id, state, queue_id, vip DESC, queued_at, id)` read in order,
 * with no sort (migration 137). The tenant leads the index, so every reader names it.
 */
export function waitingLineQuery(db: Kysely<Database>, tenantId: number, queueId: number) {
  return db
    .selectFrom('conversations')
    .where('tenant_id', '=', tenantId)
    .where('state', '=', 'waiting')
    .where('queue_id', '=', queueId)
    .orderBy('vip', 'desc')
    .orderBy('queued_at', 'asc')
    .orderBy('id', 'asc');
}

/** The queue's waiting conversations in queue order, at most `limit`. */
async function waitingLine(db: Kysely<Database>, tenantId: number, queueId: number, limit: number): Promise<Conversation[]> {
  const rows = await waitingLineQuery(db, tenantId, queueId).selectAll().limit(limitParam(limit)).execute();
  return rows.map(toConversation);
}

/** One more than the waiting conversations ahead of `conv` in its queue (an index range, counted). */
async function placeInLine(db: Kysely<Database>, conv: Parameters<ConversationEventsRepository['placeInLine']>[0]): Promise<number> {
  const vip = conv.vip ? 1 : 0;
  const row = await db
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', conv.tenantId)
    .where('state', '=', 'waiting')
    .where('queue_id', '=', conv.queueId)
    .where((eb) =>
      eb.or([
        eb('vip', '>', vip),
        eb.and([eb('vip', '=', vip), eb.or([eb('queued_at', '<', conv.queuedAt), eb.and([eb('queued_at', '=', conv.queuedAt), eb('id', '<', conv.id)])])]),
      ]),
    )
    .executeTakeFirst();
  return Number(row?.n ?? 0) + 1;
}

export async function storeEvent(trx: Kysely<Database>, row: EventDeliveryRow): Promise<void> {
  await trx
    .insertInto('deliveries')
    .values({
      id: row.deliveryId,
      tenant_id: row.conversation.tenantId,
      channel_id: row.conversation.channelId,
      conversation_id: row.conversation.id,
      message_id: null,
      event: row.event,
      customer_id: row.conversation.customerId,
      status: 'pending',
      body: row.body,
      attempts: 0,
      next_attempt_at: row.now,
      last_error: null,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

export async function inviteRating(trx: Kysely<Database>, conversationId: number, now: number): Promise<void> {
  await trx.updateTable('conversations').set({ csat_invited_at: now }).where('id', '=', conversationId).execute();
}
