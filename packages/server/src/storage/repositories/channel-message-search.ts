/**
 * The conversation search's text index (MessageSearchIndex, modules/channel/message-indexer.ts)
 * over Kysely: the tables of migration 126. SQLite indexes each message's folded text in the FTS5
 * table `channel_message_fts` (rowid = the message id; folded by `parley_lower`, as JavaScript
 * folds), its watermark in `channel_message_fts_state`; PostgreSQL copies it, folded by `lower`,
 * into the table `channel_message_text` under a trigram index, its watermark in
 * `channel_message_text_state`. No watermark row means 0. The same step marks the messages' closed conversations whose `updated_at` moved
 * after their close (`conversation_late_activity`, read by the list's latest-activity order).
 */
import { sql, type Kysely } from 'kysely';
import type { MessageSearchIndex } from '../../modules/channel/message-search-ports.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { readWatermark, watermarkTable } from './text-search.js';

/** The text of message `m`'s `txt` bodies, each folded by `parley_lower`, joined by a line feed; NULL when it has none. */
const sqliteText = sql`(SELECT group_concat(parley_lower(json_extract(b.value, '$.msg')), char(10)) FROM json_each(m.bodies) b WHERE json_extract(b.value, '$.type') = 'txt')`;

async function indexText(trx: Kysely<Database>, engine: Engine, from: number, to: number): Promise<void> {
  if (engine === 'sqlite') {
    await sql`INSERT INTO channel_message_fts (rowid, text)
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

/**
 * The watermark from `from` to `to`, or false when it is not at `from`. First in the step, so that
 * a second run waits on the row (PostgreSQL) and then finds it moved; the first step inserts the
 * row, and a second first step finds it there.
 */
async function moveWatermark(trx: Kysely<Database>, engine: Engine, from: number, to: number): Promise<boolean> {
  const table = watermarkTable(engine);
  const moved = await sql`UPDATE ${table} SET indexed_to = ${to} WHERE id = 1 AND indexed_to = ${from}`.execute(trx);
  if (Number(moved.numAffectedRows ?? 0) > 0) return true;
  if (from !== 0) return false;
  const inserted = await sql`INSERT INTO ${table} (id, indexed_to) VALUES (1, ${to}) ON CONFLICT (id) DO NOTHING`.execute(trx);
  return Number(inserted.numAffectedRows ?? 0) > 0;
}

export function kyselyMessageSearchIndex(db: Kysely<Database>, engine: Engine): MessageSearchIndex {
  return {
    async pending(limit) {
      const indexedTo = await readWatermark(db, engine);
      const rows = await db.selectFrom('channel_messages').select(['id', 'created_at']).where('id', '>', indexedTo).orderBy('id').limit(limit).execute();
      return { indexedTo, messages: rows.map((r) => ({ id: Number(r.id), createdAt: Number(r.created_at) })) };
    },
    advance(from, to) {
      return db.transaction().execute(async (trx) => {
        if (!(await moveWatermark(trx, engine, from, to))) return false;
        await indexText(trx, engine, from, to);
        await markLateActivity(trx, from, to);
        return true;
      });
    },
  };
}
