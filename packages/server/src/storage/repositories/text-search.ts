/**
 * Case-insensitive "contains", the same on both engines: SQLite folds with `parley_lower`
 * (sqlite/open.ts, JavaScript's toLowerCase), PostgreSQL with `lower`. The needle comes already
 * folded; a NULL column matches nothing.
 *
 * `containsFolded` is a scan of the rows the other conditions leave: meant for admin lists, not
 * for hot paths. `hasMessageText` (the conversation list's `q`) reads each engine's index of the
 * messages' folded text (migration 126) up to its watermark, which the background indexer
 * (channel-message-search.ts) moves, and scans the few messages past the watermark directly, so
 * a message is found the moment it is stored. SQLite's index is the FTS5 table
 * `channel_message_fts` (trigram tokenizer: a phrase of 3 characters or more is a substring
 * match); PostgreSQL's is the table `channel_message_text` searched with `LIKE` (served by a
 * `pg_trgm` GIN index when the extension could be created). Both keep a message's bodies apart
 * with a line feed, so a needle holding one, and on SQLite a needle shorter than 3 characters (too
 * short for a trigram), read the messages instead.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';

export function containsFolded(engine: Engine, column: string, folded: string): RawBuilder<SqlBool> {
  return engine === 'sqlite' ? sql<SqlBool>`instr(parley_lower(${sql.ref(column)}), ${folded}) > 0` : sql<SqlBool>`strpos(lower(${sql.ref(column)}), ${folded}::text) > 0`;
}

/** The table of the text index's watermark: each engine's own (migration 126). */
export const watermarkTable = (engine: Engine) => sql.table(engine === 'sqlite' ? 'channel_message_fts_state' : 'channel_message_text_state');

/**
 * The message id the text index has read up to (migration 126; 0 before its first step), read before the query that uses
 * it: as a value, the planner sees that few messages lie past it (as a subquery, PostgreSQL guesses
 * a third of the table and plans, and JIT-compiles, for that). An older value is as good, only
 * slower: the index and the scan past it overlap.
 */
export async function readWatermark(db: Kysely<Database>, engine: Engine): Promise<number> {
  const row = await sql<{ indexed_to: number }>`SELECT indexed_to FROM ${watermarkTable(engine)} WHERE id = 1`.execute(db);
  return Number(row.rows[0]?.indexed_to ?? 0);
}

/** Some `txt` body of message `m` contains `folded`: read from the stored JSON. */
function bodyContains(engine: Engine, folded: string): RawBuilder<SqlBool> {
  return engine === 'sqlite'
    ? sql<SqlBool>`EXISTS (SELECT 1 FROM json_each(m.bodies) b WHERE json_extract(b.value, '$.type') = 'txt' AND instr(parley_lower(json_extract(b.value, '$.msg')), ${folded}) > 0)`
    : sql<SqlBool>`EXISTS (SELECT 1 FROM jsonb_array_elements(m.bodies::jsonb) b WHERE b->>'type' = 'txt' AND strpos(lower(b->>'msg'), ${folded}::text) > 0)`;
}

/** Some `txt` body of one of the conversation's messages contains `folded`: every message read. */
function scanMessageText(engine: Engine, folded: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM channel_messages m WHERE m.conversation_id = conversations.id AND ${bodyContains(engine, folded)})`;
}

/** An FTS5 phrase: the needle in double quotes, its own double quotes doubled. */
export const ftsPhrase = (folded: string): string => `"${folded.replaceAll('"', '""')}"`;

/** A LIKE pattern (escape `\`) for "contains `folded`". */
export const likeContains = (folded: string): string => `%${folded.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Some `txt` body of one of the conversation's messages contains `folded` (already lower-case); `watermark` from `readWatermark`. */
export function hasMessageText(engine: Engine, folded: string, watermark: number): RawBuilder<SqlBool> {
  if (folded.includes('\n') || (engine === 'sqlite' && [...folded].length < 3)) return scanMessageText(engine, folded);
  const fresh = sql`SELECT m.conversation_id FROM channel_messages m WHERE m.id > ${watermark} AND ${bodyContains(engine, folded)}`;
  if (engine === 'sqlite') {
    return sql<SqlBool>`conversations.id IN (SELECT m.conversation_id FROM channel_messages m
      WHERE m.id IN (SELECT rowid FROM channel_message_fts WHERE channel_message_fts MATCH ${ftsPhrase(folded)})
      UNION ${fresh})`;
  }
  return sql<SqlBool>`conversations.id IN (SELECT t.conversation_id FROM channel_message_text t WHERE t.text LIKE ${likeContains(folded)} UNION ${fresh})`;
}
