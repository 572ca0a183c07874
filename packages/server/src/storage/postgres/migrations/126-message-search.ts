import type { Migration } from '../../types.js';

/**
 * The conversation list's text search (`q`) and the closed conversations' latest activity, kept
 * OFF the send-message path: nothing here runs when a message is written. A background indexer
 * (modules/channel/message-indexer.ts, storage/repositories/channel-message-search.ts) fills them
 * behind a watermark:
 * - `parley_message_text(bodies)`: the text of a message's `txt` bodies, each folded by `lower`,
 *   joined by a line feed (NULL when it has none).
 * - `channel_message_text`: that text per message (with its conversation), a table apart from
 *   `channel_messages`; a trigram GIN index (extension `pg_trgm`) serves the search's
 *   `LIKE '%needle%'`. The extension ships with PostgreSQL (contrib) and is trusted, so a database
 *   owner may create it; where it cannot be created, the migration goes on without the index and
 *   the search reads this table in full: the same answers, slower. A message's deletion (cascades
 *   included) removes its row.
 * - `channel_message_text_state`: one row (none before the indexer's first step: 0), `indexed_to`:
 *   every message with an id up to it has been read by the indexer; the search scans the messages
 *   past it directly. No row is written here, so a restore or `copy-to` fills these tables from
 *   its source alone (a copy from SQLite leaves them empty: the indexer reads every message).
 * - `conversation_late_activity`: closed conversations whose `updated_at` moved after they closed.
 */
export const messageSearch: Migration = {
  version: 126,
  name: 'message-search',
  statements: [
    `CREATE FUNCTION parley_message_text(bodies TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT string_agg(lower(b->>'msg'), E'\\n') FROM jsonb_array_elements(bodies::jsonb) b WHERE b->>'type' = 'txt'
    $$`,
    `CREATE TABLE channel_message_text (
      message_id BIGINT PRIMARY KEY REFERENCES channel_messages(id) ON DELETE CASCADE,
      conversation_id BIGINT NOT NULL,
      text TEXT NOT NULL
    )`,
    `DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm is not available (%): the conversation list''s text search reads its text table in full', SQLERRM;
    END $$`,
    `DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX channel_message_text_trgm ON channel_message_text USING gin (text gin_trgm_ops);
      END IF;
    END $$`,
    `CREATE TABLE channel_message_text_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_to BIGINT NOT NULL)`,
    `CREATE TABLE conversation_late_activity (
      tenant_id BIGINT NOT NULL,
      conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      PRIMARY KEY (tenant_id, conversation_id)
    )`,
    `CREATE INDEX conversation_late_activity_conversation ON conversation_late_activity (conversation_id)`,
  ],
};
