import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { SecretBox } from '../../kernel/secret-box.js';
import { MAX_CALLBACK_RULES } from '@parley/protocol';
import { parseBanState, type BanState } from '../../modules/callbacks/ban.js';
import type { CallbackRule, CallbacksRepository, CallbackSettings, RuleFilters, StoredRecord } from '../../modules/callbacks/ports.js';
import type { UnsignedRecord } from '../../modules/callbacks/record.js';
import type { CallbackRulesTable, CallbackStoredTable } from '../tables/callbacks.js';
import { isUniqueViolation } from '../errors.js';
import { limitParam } from '../precompiled.js';
import type { Database } from '../schema.js';

/**
 * Rule secrets are stored sealed (AES-256-GCM with the instance key, as REST Client Secrets are).
 * A value that does not open is one stored before sealing was introduced: it is used as it is.
 */
function openSecret(box: SecretBox, stored: string): string {
  if (!stored.startsWith('v1.')) return stored;
  try {
    return box.open(stored);
  } catch {
    return stored;
  }
}

const ruleOf = (box: SecretBox) => (row: Selectable<CallbackRulesTable>): CallbackRule => ({
  id: row.id,
  appId: row.app_id,
  name: row.name,
  url: row.url,
  enabled: row.enabled === 1,
  eventTypes: JSON.parse(row.event_types) as RuleFilters['eventTypes'],
  chatTypes: JSON.parse(row.chat_types) as RuleFilters['chatTypes'],
  messageTypes: JSON.parse(row.message_types) as RuleFilters['messageTypes'],
  sources: JSON.parse(row.sources) as RuleFilters['sources'],
  secret: openSecret(box, row.secret),
  ban: parseBanState(JSON.parse(row.ban_state)),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toStored = (row: Selectable<CallbackStoredTable>): StoredRecord => ({
  id: row.id,
  appId: row.app_id,
  dateKey: row.date_key,
  ruleId: row.rule_id,
  ruleName: row.rule_name,
  record: JSON.parse(row.record) as UnsignedRecord,
  lastError: row.last_error,
  storedAt: row.stored_at,
});

const banColumns = (state: BanState) => ({
  status: state.status,
  ban_count: state.banCount,
  banned_until: state.bannedUntil,
  ban_state: JSON.stringify(state),
});

export function kyselyCallbacksRepository(db: Kysely<Database>, secrets: SecretBox): CallbacksRepository {
  const toRule = ruleOf(secrets);
  async function getSettings(appId: string, conn: Kysely<Database> = db): Promise<CallbackSettings> {
    const row = await conn.selectFrom('callback_settings').selectAll().where('app_id', '=', appId).executeTakeFirst();
    return { appId, enabled: row?.enabled === 1, storeFailed: row?.store_failed === 1 };
  }

  async function getRule(appId: string, name: string) {
    const row = await db.selectFrom('callback_rules').selectAll().where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
    return row && toRule(row);
  }

  return {
    getSettings,
    async putSettings(appId, patch, now) {
      return db.transaction().execute(async (trx) => {
        const current = await getSettings(appId, trx);
        const next = { enabled: patch.enabled ?? current.enabled, storeFailed: patch.storeFailed ?? current.storeFailed };
        const values = { enabled: next.enabled ? 1 : 0, store_failed: next.storeFailed ? 1 : 0, updated_at: now };
        await trx
          .insertInto('callback_settings')
          .values({ app_id: appId, ...values })
          .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
          .execute();
        return { appId, ...next };
      });
    },

    async listRules(appId, conn = db) {
      const rows = await conn.selectFrom('callback_rules').selectAll().where('app_id', '=', appId).orderBy('id').execute();
      return rows.map(toRule);
    },
    getRule,
    async allRuleIds() {
      return (await db.selectFrom('callback_rules').select('id').orderBy('id').execute()).map((r) => r.id);
    },
    async getRuleById(id) {
      const row = await db.selectFrom('callback_rules').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRule(row);
    },
    async createRule(input, now) {
      // Take the lowest free slot; a concurrent create that took the same slot makes the insert
      // fail on UNIQUE (app_id, slot), and we look again.
      for (let round = 0; round <= MAX_CALLBACK_RULES * 2; round++) {
        const taken = await db.selectFrom('callback_rules').select(['slot', 'name']).where('app_id', '=', input.appId).execute();
        if (taken.some((r) => r.name === input.name)) return { ok: false, reason: 'duplicate_name' };
        const used = new Set(taken.map((r) => r.slot));
        const slot = Array.from({ length: MAX_CALLBACK_RULES }, (_, i) => i + 1).find((s) => !used.has(s));
        if (slot === undefined) return { ok: false, reason: 'limit_reached' };
        try {
          const row = await db
            .insertInto('callback_rules')
            .values({
              app_id: input.appId,
              slot,
              name: input.name,
              url: input.url,
              enabled: input.enabled ? 1 : 0,
              event_types: JSON.stringify(input.eventTypes),
              chat_types: JSON.stringify(input.chatTypes),
              message_types: JSON.stringify(input.messageTypes),
              sources: JSON.stringify(input.sources),
              secret: secrets.seal(input.secret),
              banned_until: null,
              created_at: now,
              updated_at: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return { ok: true, rule: toRule(row) };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
        }
      }
      return { ok: false, reason: 'limit_reached' };
    },
    async updateRule(appId, name, patch, now) {
      const set: Updateable<CallbackRulesTable> = { updated_at: now };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.enabled !== undefined) set.enabled = patch.enabled ? 1 : 0;
      if (patch.secret !== undefined) set.secret = secrets.seal(patch.secret);
      if (patch.eventTypes) set.event_types = JSON.stringify(patch.eventTypes);
      if (patch.chatTypes) set.chat_types = JSON.stringify(patch.chatTypes);
      if (patch.messageTypes) set.message_types = JSON.stringify(patch.messageTypes);
      if (patch.sources) set.sources = JSON.stringify(patch.sources);
      const row = await db
        .updateTable('callback_rules')
        .set(set)
        .where('app_id', '=', appId)
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
      return row && toRule(row);
    },
    async deleteRule(appId, name) {
      const result = await db.deleteFrom('callback_rules').where('app_id', '=', appId).where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async saveBanState(ruleId, state, now) {
      await db.updateTable('callback_rules').set({ ...banColumns(state), updated_at: now }).where('id', '=', ruleId).execute();
    },

    async storeRecords(records, now, conn = db) {
      if (records.length === 0) return;
      await conn
        .insertInto('callback_stored')
        .values(
          records.map((r) => ({
            app_id: r.appId,
            date_key: r.dateKey,
            call_id: r.record.callId,
            rule_id: r.ruleId,
            rule_name: r.ruleName,
            event_type: r.record.eventType,
            msg_id: r.record.msg_id,
            record: JSON.stringify(r.record),
            last_error: r.lastError,
            stored_at: now,
          })),
        )
        .execute();
      const keys = new Map<string, { app_id: string; date_key: string; updated_at: number; size: number }>();
      for (const r of records) {
        const id = `${r.appId}\n${r.dateKey}`;
        const key = keys.get(id);
        if (key) key.size++;
        else keys.set(id, { app_id: r.appId, date_key: r.dateKey, updated_at: now, size: 1 });
      }
      await conn
        .insertInto('callback_store_keys')
        .values([...keys.values()])
        .onConflict((oc) => oc.columns(['app_id', 'date_key']).doUpdateSet((eb) => ({ size: eb('callback_store_keys.size', '+', eb.ref('excluded.size')) })))
        .execute();
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
    async updateStoredError(id, lastError) {
      await db.updateTable('callback_stored').set({ last_error: lastError }).where('id', '=', id).execute();
    },
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
