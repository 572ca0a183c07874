/** The durable delivery log (modules/callbacks/delivery-log-ports.ts) on Kysely. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DeliveryLogRepository, DeliveryRow, LoggedDelivery, MinuteCounts } from '../../modules/callbacks/delivery-log-ports.js';
import { directRunnerOf, runDirectly } from '../direct-statements.js';
import { copies, precompiledSized } from '../precompiled.js';
import type { CallbackDeliveriesTable } from '../tables/delivery-log.js';
import type { Database } from '../schema.js';

/**
 * Rows per INSERT: a batch is cut greedily into statements of these sizes, so that only these few
 * shapes are ever compiled (14 values a row: 3,584 parameters at most, well under both engines'
 * bound).
 */
const INSERT_SIZES = [256, 64, 16, 4, 1] as const;
/** Rows per DELETE of the retention sweep. */
const DELETE_CHUNK = 5_000;
const MINUTE = 60_000;

/** A placeholder row; each row's parameters follow its keys' order (`pushParams`). */
const PLACEHOLDER: Omit<CallbackDeliveriesTable, 'id'> = {
  app_id: '',
  rule_id: 0,
  rule_name: '',
  call_id: '',
  msg_id: '',
  event_type: '',
  from_user: '',
  to_user: '',
  status: 'success',
  http_status: null,
  duration_ms: 0,
  error: null,
  resend: 0,
  at: 0,
};

/** `r`'s values, in PLACEHOLDER's column order. */
function pushParams(params: unknown[], r: DeliveryRow): void {
  params.push(r.appId, r.ruleId, r.rule, r.callId, r.msgId, r.eventType, r.from, r.to, r.status, r.httpStatus, r.durationMs, r.error, r.resend ? 1 : 0, r.at);
}

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

/**
 * Writes `rows` with the log's INSERT compiled once per size in INSERT_SIZES (`insert`, one per
 * repository: the SQL is the engine's): building a batch's statement with Kysely on each write
 * cost more main-thread time than running it.
 */
async function insertRows(insert: InsertShape, db: Kysely<Database>, rows: readonly DeliveryRow[]): Promise<void> {
  let i = 0;
  for (const size of INSERT_SIZES) {
    while (rows.length - i >= size) {
      const params: unknown[] = [];
      for (let j = i; j < i + size; j++) pushParams(params, rows[j] as DeliveryRow);
      await insert(db, size, params);
      i += size;
    }
  }
}

type InsertShape = ReturnType<typeof insertShapes>;
const insertShapes = () => precompiledSized((db, n) => db.insertInto('callback_deliveries').values(copies(n, PLACEHOLDER)), INSERT_SIZES.length);

export function kyselyDeliveryLogRepository(db: Kysely<Database>): DeliveryLogRepository {
  const insert = insertShapes();
  return {
    async appendDeliveries(rows) {
      if (rows.length === 0) return;
      // A batch is one transaction; on SQLite its statements go straight to the driver (direct-statements.ts).
      const direct = directRunnerOf(db);
      await db.transaction().execute((trx) => {
        if (direct) runDirectly(trx, direct);
        return insertRows(insert, trx, rows);
      });
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
