import type { Kysely, Selectable } from 'kysely';
import type { DeliveriesRepository, Delivery, DeliveryAttempt } from '../../modules/channel/ports.js';
import type { ChannelWrites } from '../../modules/channel/transaction.js';
import type { DeliveriesTable, DeliveryAttemptsTable } from '../tables/channel.js';
import type { Database } from '../schema.js';
import { limitParam } from '../precompiled.js';

const toDelivery = (row: Selectable<DeliveriesTable> & { msg_id: string | null; agent_id: number | null }): Delivery => ({
  id: row.id,
  tenantId: row.tenant_id,
  channelId: row.channel_id,
  conversationId: row.conversation_id,
  messageId: row.message_id,
  msgId: row.msg_id,
  event: row.event,
  agentId: row.agent_id,
  customerId: row.customer_id,
  status: row.status,
  body: row.body,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toAttempt = (row: Selectable<DeliveryAttemptsTable>): DeliveryAttempt => ({
  attempt: row.attempt,
  startedAt: row.started_at,
  statusCode: row.status_code,
  latencyMs: row.latency_ms,
  error: row.error,
  succeeded: row.succeeded === 1,
});

export function kyselyDeliveriesRepository(db: Kysely<Database>): DeliveriesRepository {
  // Conversation events have no message: their msg_id and agent are null.
  const withMsgId = () => db.selectFrom('deliveries as d').leftJoin('channel_messages as m', 'm.id', 'd.message_id').selectAll('d').select(['m.msg_id', 'm.agent_id']);
  return {
    async get(id) {
      const row = await withMsgId().where('d.id', '=', id).executeTakeFirst();
      return row && toDelivery(row);
    },
    async list(channelId, status, limit) {
      let q = withMsgId().where('d.channel_id', '=', channelId);
      if (status) q = q.where('d.status', '=', status);
      const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limitParam(limit)).execute();
      const attempts = rows.length
        ? await db
            .selectFrom('delivery_attempts')
            .selectAll()
            .where(
              'delivery_id',
              'in',
              rows.map((r) => r.id),
            )
            .orderBy('attempt')
            .execute()
        : [];
      return rows.map((row) => ({ ...toDelivery(row), attemptLog: attempts.filter((a) => a.delivery_id === row.id).map(toAttempt) }));
    },
  };
}

/** Sets a delivery back to pending, in the transaction `trx`; false when there is no such delivery. */
export async function requeueDelivery(trx: Kysely<Database>, id: string, now: number): Promise<boolean> {
  const result = await trx.updateTable('deliveries').set({ status: 'pending', next_attempt_at: now, updated_at: now }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records an attempt of a delivery and its next state, in the transaction `trx`. */
export async function recordDeliveryAttempt(trx: Kysely<Database>, ...[id, attempt, next, now]: Parameters<ChannelWrites['recordAttempt']>): Promise<DeliveryAttempt> {
  const updated = await trx
    .updateTable('deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      status: next.status,
      next_attempt_at: next.nextAttemptAt,
      last_error: attempt.error,
      updated_at: now,
    }))
    .where('id', '=', id)
    .returning('attempts')
    .executeTakeFirstOrThrow();
  const row = await trx
    .insertInto('delivery_attempts')
    .values({
      delivery_id: id,
      attempt: updated.attempts,
      started_at: attempt.startedAt,
      status_code: attempt.statusCode,
      latency_ms: Math.round(attempt.latencyMs),
      error: attempt.error,
      succeeded: attempt.succeeded ? 1 : 0,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAttempt(row);
}
