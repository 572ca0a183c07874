/** The durable delivery log (modules/callbacks/delivery-log-ports.ts) on Kysely. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DeliveryLogRepository, LoggedDelivery, MinuteCounts } from '../../modules/callbacks/delivery-log-ports.js';
import type { CallbackDeliveriesTable } from '../tables/delivery-log.js';
import type { Database } from '../schema.js';

/** Rows per INSERT (15 values each, well under both engines' bound on parameters). */
const INSERT_CHUNK = 500;
/** Rows per DELETE of the retention sweep. */
const DELETE_CHUNK = 5_000;
const MINUTE = 60_000;

const deliveryOf = (row: Selectable<CallbackDeliveriesTable>): LoggedDelivery => ({
  id: Number(row.id),
  appId: row.app_id,
  ruleId: Number(row.rule_id),
  rule: row.rule_name,
  callId: row.call_id,
  msgId: row.msg_id,
  eventType: row.event_type,
  from: row.from_user,
  to: row.to_user,
  status: row.status,
  httpStatus: row.http_status === null ? null : Number(row.http_status),
  durationMs: Number(row.duration_ms),
  error: row.error,
  resend: Number(row.resend) === 1,
  at: Number(row.at),
});

export function kyselyDeliveryLogRepository(db: Kysely<Database>): DeliveryLogRepository {
  return {
    async appendDeliveries(rows) {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const values = rows.slice(i, i + INSERT_CHUNK).map((r) => ({
          app_id: r.appId,
          rule_id: r.ruleId,
          rule_name: r.rule,
          call_id: r.callId,
          msg_id: r.msgId,
          event_type: r.eventType,
          from_user: r.from,
          to_user: r.to,
          status: r.status,
          http_status: r.httpStatus,
          duration_ms: r.durationMs,
          error: r.error,
          resend: r.resend ? 1 : 0,
          at: r.at,
        }));
        await db.insertInto('callback_deliveries').values(values).execute();
      }
    },
    async searchDeliveries(appId, s) {
      let q = db.selectFrom('callback_deliveries').selectAll().where('app_id', '=', appId);
      if (s.msgId !== undefined) q = q.where('msg_id', '=', s.msgId);
      if (s.user !== undefined) {
        const user = s.user;
        q = q.where((eb) => eb.or([eb('from_user', '=', user), eb('to_user', '=', user)]));
      }
      if (s.rule !== undefined) q = q.where('rule_name', '=', s.rule);
      if (s.status !== undefined) q = q.where('status', '=', s.status);
      if (s.since !== undefined) q = q.where('at', '>=', s.since);
      if (s.until !== undefined) q = q.where('at', '<', s.until);
      if (s.beforeId !== undefined) q = q.where('id', '<', s.beforeId);
      const rows = await q.orderBy('id', 'desc').limit(s.limit).execute();
      return rows.map(deliveryOf);
    },
    async countPerMinute(appId, since) {
      const minute = sql<number>`(at / ${sql.lit(MINUTE)}) * ${sql.lit(MINUTE)}`;
      const rows = await db
        .selectFrom('callback_deliveries')
        .select([minute.as('minute'), 'status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('app_id', '=', appId)
        .where('at', '>=', since)
        .groupBy([minute, 'status'])
        .execute();
      return rows.map((r): MinuteCounts => ({ minute: Number(r.minute), status: r.status, count: Number(r.count) }));
    },
    async deleteDeliveriesUpTo(cutoff) {
      let deleted = 0;
      for (;;) {
        const ids = db.selectFrom('callback_deliveries').select('id').where('at', '<=', cutoff).limit(DELETE_CHUNK);
        const result = await db.deleteFrom('callback_deliveries').where('id', 'in', ids).executeTakeFirst();
        const n = Number(result.numDeletedRows);
        deleted += n;
        if (n < DELETE_CHUNK) return deleted;
      }
    },
  };
}
