import type { Migration } from '../../types.js';

/**
 * The conversation list's text search (`q`) and label search without reading every message or
 * visitor:
 * - `parley_message_text(bodies)`: the text of a message's `txt` bodies, each folded by `lower`,
 *   joined by a line feed (NULL when it has none). The list's search is `LIKE '%needle%'` on it,
 *   the same substring semantics as before (docs/channel.md).
 * - A trigram GIN index on that expression (extension `pg_trgm`) serves the `LIKE`. The extension
 *   ships with PostgreSQL (contrib) and is trusted, so a database owner may create it; where it
 *   cannot be created (not installed, no right), the migration goes on without the index and the
 *   search reads the messages as it did before: the same answers, slower.
 * - A GIN index on the visitors' tags (`tags::jsonb @>`), the `label` filter's other half.
 * An expression index follows every write of its table by itself: nothing to keep in step.
 */
export const messageTextIndex: Migration = {
  version: 119,
  name: 'message-text-index',
  statements: [
    `CREATE FUNCTION parley_message_text(bodies TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT string_agg(lower(b->>'msg'), E'\\n') FROM jsonb_array_elements(bodies::jsonb) b WHERE b->>'type' = 'txt'
    $$`,
    `DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm is not available (%): the conversation list''s text search reads the messages', SQLERRM;
    END $$`,
    `DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX channel_messages_text ON channel_messages USING gin (parley_message_text(bodies) gin_trgm_ops);
      END IF;
    END $$`,
    `CREATE INDEX channel_visitors_tags ON channel_visitors USING gin ((tags::jsonb) jsonb_path_ops)`,
  ],
};
