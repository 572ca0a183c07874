/**
 * The conversation search's text index (MessageSearchIndex, modules/channel/message-indexer.ts)
 * over Kysely: the tables of migration 126. SQLite indexes each message's folded text in the FTS5
 * table `channel_message_text` (rowid = the message id; folded by `parley_lower`, as JavaScript
 * folds); PostgreSQL copies it, folded by `lower`, into the table `channel_message_text` under a
 * trigram index. The same step marks the messages' closed conversations whose `updated_at` moved
 * after their close (`conversation_late_activity`, read by the list's latest-activity order).
 */
import { sql, type Kysely } from 'kysely';
import type { MessageSearchIndex } from '../../modules/channel/message-search-ports.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';

/** The text of message `m`'s `txt` bodies, each folded by `parley_lower`, joined by a line feed; NULL when it has none. */
const sqliteText = sql`(SELECT group_concat(parley_lower(json_extract(b.value, '$.msg')), char(10)) FROM json_each(m.bodies) b WHERE json_extract(b.value, '$.type') = 'txt')`;

async function indexText(trx: Kysely<Database>, engine: Engine, from: number, to: number): Promise<void> {
  if (engine === 'sqlite') {
    await sql`INSERT INTO channel_message_text (rowid, text)
      SELECT id, t FROM (SELECT m.id, ${sqliteText} AS t FROM channel_messages m WHERE m.id > ${from} AND m.id <= ${to}) WHERE t IS NOT NULL`.execute(trx);
    return;
  }
  await sql`INSERT INTO channel_message_text (message_id, conversation_id, text)
    SELECT id, conversation_id, t FROM (SELECT m.id, m.conversation_id, parley_message_text(m.bodies) AS t FROM channel_messages m WHERE m.id > ${from} AND m.id <= ${to}) x
    WHERE t IS NOT NULL ON CONFLICT (message_id) DO NOTHING`.execute(trx);
}

async function markLateActivity(trx: Kysely<Database>, from: number, to: number): Promise<void> {
  await sql`INSERT INTO conversation_late_activity (tenant_id, conversation_id)
    SELECT c.tenant_id, c.id FROM conversations c
    WHERE c.id IN (SELECT m.conversation_id FROM channel_messages m WHERE m.id > ${from} AND m.id <= ${to})
      AND c.state = 'closed' AND (c.closed_at IS NULL OR c.updated_at <> c.closed_at)
    ON CONFLICT DO NOTHING`.execute(trx);
}

export function kyselyMessageSearchIndex(db: Kysely<Database>, engine: Engine): MessageSearchIndex {
  return {
    async pending(limit) {
      const mark = await sql<{ indexed_to: number }>`SELECT indexed_to FROM channel_message_search WHERE id = 1`.execute(db);
      const indexedTo = Number(mark.rows[0]?.indexed_to ?? 0);
      const rows = await db.selectFrom('channel_messages').select(['id', 'created_at']).where('id', '>', indexedTo).orderBy('id').limit(limit).execute();
      return { indexedTo, messages: rows.map((r) => ({ id: Number(r.id), createdAt: Number(r.created_at) })) };
    },
    advance(from, to) {
      return db.transaction().execute(async (trx) => {
        // First, so that a second run waits on this row (PostgreSQL) and then finds it moved.
        const moved = await sql`UPDATE channel_message_search SET indexed_to = ${to} WHERE id = 1 AND indexed_to = ${from}`.execute(trx);
        if (Number(moved.numAffectedRows ?? 0) === 0) return false;
        await indexText(trx, engine, from, to);
        await markLateActivity(trx, from, to);
        return true;
      });
    },
  };
}
