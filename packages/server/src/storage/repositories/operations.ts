/** Operator events (modules/operations/ports.ts): operations webhooks (secrets sealed) and recorded events. */
import type { Kysely, Selectable } from 'kysely';
import type { OperatorEventType } from '@parley/protocol';
import type { SecretBox } from '../../kernel/secret-box.js';
import type { OperationsRepository, OperationsWebhook, OperatorEventWrites, OperatorOwner, StoredOperatorEvent } from '../../modules/operations/ports.js';
import { limitParam } from '../precompiled.js';
import type { Database } from '../schema.js';
import type { OperationsWebhooksTable, OperatorEventsTable } from '../tables/operations.js';

const webhookOf =
  (box: SecretBox) =>
  (row: Selectable<OperationsWebhooksTable>): OperationsWebhook => ({
    owner: { scope: row.scope, id: row.owner_id },
    url: row.url,
    secret: box.open(row.secret),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });

const eventOf = (row: Selectable<OperatorEventsTable>): StoredOperatorEvent => ({
  id: row.id,
  owner: { scope: row.scope, id: row.owner_id },
  type: row.type as OperatorEventType,
  data: JSON.parse(row.data) as Record<string, unknown>,
  at: Number(row.at),
  dedupeKey: row.dedupe_key,
  status: row.status,
  attempts: Number(row.attempts),
  lastError: row.last_error,
  updatedAt: Number(row.updated_at),
});

/** The event writes of the transaction `trx`. */
export function operatorEventWrites(trx: Kysely<Database>): OperatorEventWrites {
  return {
    async insertEvent(event) {
      const row = await trx
        .insertInto('operator_events')
        .values({
          id: event.id,
          scope: event.owner.scope,
          owner_id: event.owner.id,
          type: event.type,
          data: JSON.stringify(event.data),
          dedupe_key: event.dedupeKey,
          at: event.at,
          status: 'pending',
          attempts: 0,
          last_error: null,
          updated_at: event.at,
        })
        .onConflict((oc) => oc.columns(['scope', 'owner_id', 'dedupe_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export function kyselyOperationsRepository(db: Kysely<Database>, secrets: SecretBox): OperationsRepository {
  const toWebhook = webhookOf(secrets);
  const ofOwner = (owner: OperatorOwner) => db.selectFrom('operations_webhooks').selectAll().where('scope', '=', owner.scope).where('owner_id', '=', owner.id);
  return {
    async webhook(owner) {
      const row = await ofOwner(owner).executeTakeFirst();
      return row && toWebhook(row);
    },
    async putWebhook(owner, url, secret, now) {
      const sealed = secrets.seal(secret);
      const row = await db
        .insertInto('operations_webhooks')
        .values({ scope: owner.scope, owner_id: owner.id, url, secret: sealed, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['scope', 'owner_id']).doUpdateSet({ url, secret: sealed, updated_at: now }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toWebhook(row);
    },
    async deleteWebhook(owner) {
      const row = await db.deleteFrom('operations_webhooks').where('scope', '=', owner.scope).where('owner_id', '=', owner.id).returningAll().executeTakeFirst();
      return row && toWebhook(row);
    },
    async event(id) {
      const row = await db.selectFrom('operator_events').selectAll().where('id', '=', id).executeTakeFirst();
      return row && eventOf(row);
    },
    async noteSend(id, note) {
      await db.updateTable('operator_events').set({ status: note.status, attempts: note.attempts, last_error: note.lastError, updated_at: note.at }).where('id', '=', id).execute();
    },
    async recentEvents(owner, limit) {
      const rows = await db
        .selectFrom('operator_events')
        .selectAll()
        .where('scope', '=', owner.scope)
        .where('owner_id', '=', owner.id)
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(limitParam(limit))
        .execute();
      return rows.map(eventOf);
    },
    async deleteEventsUpTo(cutoff) {
      const result = await db.deleteFrom('operator_events').where('at', '<=', cutoff).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
