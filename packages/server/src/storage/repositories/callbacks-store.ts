/**
 * The exception store of the callbacks port: records that failed to deliver, kept by app and date
 * key, the key rows that carry each key's size and re-send count, and the retention sweep.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely, Selectable } from 'kysely';
import type { CallbacksRepository, NewStoredRecord, StoredRecord } from '../../modules/callbacks/ports.js';
import type { UnsignedRecord } from '../../modules/callbacks/record.js';
import type { CallbackStoredTable } from '../tables/callbacks.js';
import { limitParam } from '../precompiled.js';
import type { Database } from '../schema.js';

export type RecordStoreRepository = Pick<
  CallbacksRepository,
  'storeRecords' | 'storedKeys' | 'storedPage' | 'bumpKeyRetry' | 'noteResend' | 'deleteStoredUpTo' | 'expiringKeys' | 'markExpiringNoticed'
>;

const toStored = (row: Selectable<CallbackStoredTable>): StoredRecord => ({
  id: row.id,
  appId: row.app_id,
  dateKey: row.date_key,
  ruleId: row.rule_id,
  ruleName: row.rule_name,
  record: JSON.parse(row.record) as UnsignedRecord,
  eventType: row.event_type,
  msgId: row.msg_id,
  lastError: row.last_error,
  storedAt: row.stored_at,
  lastResend: row.resend_result === null || row.resent_at === null ? null : { result: row.resend_result, at: row.resent_at },
});

/** Inserts the records, then adds their number to each key's size (creating the keys new to it). */
async function insertRecords(conn: Kysely<Database>, records: NewStoredRecord[], now: number): Promise<void> {
  await conn
    .insertInto('callback_stored')
    .values(
      records.map((r) => ({
        app_id: r.appId,
        date_key: r.dateKey,
        call_id: r.record.callId,
        rule_id: r.ruleId,
        rule_name: r.ruleName,
        event_type: r.eventType,
        msg_id: r.msgId,
        record: JSON.stringify(r.record),
        last_error: r.lastError,
        stored_at: now,
      })),
    )
    .execute();
  const keys = new Map<string, { app_id: string; date_key: string; updated_at: number; size: number; first_stored_at: number }>();
  for (const r of records) {
    const id = `${r.appId}\n${r.dateKey}`;
    const key = keys.get(id);
    if (key) key.size++;
    else keys.set(id, { app_id: r.appId, date_key: r.dateKey, updated_at: now, size: 1, first_stored_at: now });
  }
  await conn
    .insertInto('callback_store_keys')
    .values([...keys.values()])
    .onConflict((oc) =>
      oc.columns(['app_id', 'date_key']).doUpdateSet((eb) => ({
        size: eb('callback_store_keys.size', '+', eb.ref('excluded.size')),
        // A key made by a re-send request before it held records takes its first record's time.
        first_stored_at: eb.fn.coalesce('callback_store_keys.first_stored_at', 'excluded.first_stored_at'),
      })),
    )
    .execute();
}

export function kyselyRecordStoreRepository(db: Kysely<Database>): RecordStoreRepository {
  return {
    async storeRecords(records, now, conn = db) {
      if (records.length === 0) return;
      await insertRecords(conn, records, now);
    },
    async storedKeys(appId) {
      // The key rows carry their size: no count over the app's records on every request.
      const rows = await db
        .selectFrom('callback_store_keys')
        .select(['date_key', 'size', 'retry'])
        .where('app_id', '=', appId)
        .where('size', '>', 0)
        .orderBy('date_key')
        .execute();
      return rows.map((r) => ({ date: r.date_key, size: Number(r.size), retry: Number(r.retry) }));
    },
    async storedPage(appId, dateKey, afterId, limit, conn = db) {
      // Keyset read on the index (app_id, date_key, id): a page costs the same wherever it starts.
      const rows = await conn
        .selectFrom('callback_stored')
        .selectAll()
        .where('app_id', '=', appId)
        .where('date_key', '=', dateKey)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limitParam(limit))
        .execute();
      return rows.map(toStored);
    },
    async bumpKeyRetry(appId, dateKey, now, conn = db) {
      // Two statements, both safe to repeat; callers pass their transaction to pair it with a job.
      await conn
        .insertInto('callback_store_keys')
        .values({ app_id: appId, date_key: dateKey, updated_at: now })
        .onConflict((oc) => oc.columns(['app_id', 'date_key']).doNothing())
        .execute();
      const row = await conn
        .updateTable('callback_store_keys')
        .set((eb) => ({ retry: eb('retry', '+', 1), updated_at: now }))
        .where('app_id', '=', appId)
        .where('date_key', '=', dateKey)
        .returning('retry')
        .executeTakeFirstOrThrow();
      return Number(row.retry);
    },
    async noteResend(id, outcome) {
      const set = { resend_result: outcome.result, resent_at: outcome.at };
      await db
        .updateTable('callback_stored')
        .set(outcome.result === 'failure' ? { ...set, last_error: outcome.error } : set)
        .where('id', '=', id)
        .execute();
    },
    expiringKeys: (cutoff, limit) => expiringKeys(db, cutoff, limit),
    markExpiringNoticed: (appId, dateKey, now) => markExpiringNoticed(db, appId, dateKey, now),
    async deleteStoredUpTo(cutoff) {
      let deleted = 0;
      for (;;) {
        const n = await db.transaction().execute((trx) => deleteExpiredChunk(trx, cutoff));
        deleted += n;
        if (n < SWEEP_CHUNK) return deleted;
        // A large key expiring at once is deleted a chunk per transaction, with requests served between.
        await yieldToEventLoop();
      }
    },
  };
}

/** Keys holding records, the first stored at or before `cutoff`, not yet noticed as expiring; oldest first. */
async function expiringKeys(db: Kysely<Database>, cutoff: number, limit: number) {
  const rows = await db
    .selectFrom('callback_store_keys')
    .select(['app_id', 'date_key', 'size', 'first_stored_at'])
    .where('expiring_noticed_at', 'is', null)
    .where('first_stored_at', '<=', cutoff)
    .where('size', '>', 0)
    .orderBy('first_stored_at')
    .limit(limitParam(limit))
    .execute();
  return rows.map((r) => ({ appId: r.app_id, date: r.date_key, size: Number(r.size), firstStoredAt: Number(r.first_stored_at) }));
}

/** Marks a key noticed as expiring, once: false when it already was. */
async function markExpiringNoticed(db: Kysely<Database>, appId: string, dateKey: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('callback_store_keys')
    .set({ expiring_noticed_at: now })
    .where('app_id', '=', appId)
    .where('date_key', '=', dateKey)
    .where('expiring_noticed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records deleted per transaction by the retention sweep (about 7 ms each on SQLite). */
const SWEEP_CHUNK = 1000;

/** Deletes up to SWEEP_CHUNK of the oldest records stored at or before `cutoff`, with their keys' sizes. */
async function deleteExpiredChunk(trx: Kysely<Database>, cutoff: number): Promise<number> {
  const rows = await trx
    .selectFrom('callback_stored')
    .select(['id', 'app_id', 'date_key'])
    .where('stored_at', '<=', cutoff)
    .orderBy('stored_at')
    .limit(limitParam(SWEEP_CHUNK))
    .execute();
  if (rows.length === 0) return 0;
  await trx.deleteFrom('callback_stored').where('id', 'in', rows.map((r) => r.id)).execute();
  const perKey = new Map<string, { appId: string; dateKey: string; n: number }>();
  for (const r of rows) {
    const id = `${r.app_id}\n${r.date_key}`;
    const key = perKey.get(id) ?? { appId: r.app_id, dateKey: r.date_key, n: 0 };
    key.n++;
    perKey.set(id, key);
  }
  for (const key of perKey.values()) {
    await trx
      .updateTable('callback_store_keys')
      .set((eb) => ({ size: eb('size', '-', key.n) }))
      .where('app_id', '=', key.appId)
      .where('date_key', '=', key.dateKey)
      .execute();
  }
  await trx.deleteFrom('callback_store_keys').where('size', '<=', 0).execute();
  return rows.length;
}
