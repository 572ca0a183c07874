import type { Migration } from '../../types.js';

/**
 * The conversation list's text search (`q`) and the closed conversations' latest activity, kept
 * OFF the send-message path: nothing here runs when a message is written. A background indexer
 * (modules/channel/message-indexer.ts, storage/repositories/channel-message-search.ts) fills them
 * behind a watermark:
 * - `channel_message_fts`: FTS5, trigram tokenizer, over the folded text of each message's `txt`
 *   bodies (rowid = the message's id), so a needle of 3 characters or more is a substring match
 *   through the index. Contentless: it keeps the index, not a second copy of the text.
 * - `channel_message_fts_state`: one row (none before the indexer's first step: 0), `indexed_to`:
 *   every message with an id up to it has been read by the indexer; the search scans the messages
 *   past it directly. SQLite's index and its state have names of their own: `copy-to` moves the
 *   tables PostgreSQL has, so PostgreSQL's indexer starts over from the copied messages.
 * - `conversation_late_activity`: closed conversations whose `updated_at` moved after they closed
 *   (a message written to them then); every other closed conversation's latest activity is its
 *   `closed_at` (migration 127).
 * A deletion of a message (foreign-key cascades included) removes its indexed text: the trigger
 * fires on deletes only, never on a message's insert.
 */
export const messageSearch: Migration = {
  version: 126,
  name: 'message-search',
  statements: [
    `CREATE VIRTUAL TABLE channel_message_fts USING fts5(text, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`,
    `CREATE TABLE channel_message_fts_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_to INTEGER NOT NULL)`,
    `CREATE TABLE conversation_late_activity (
      tenant_id INTEGER NOT NULL,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      PRIMARY KEY (tenant_id, conversation_id)
    ) WITHOUT ROWID`,
    `CREATE INDEX conversation_late_activity_conversation ON conversation_late_activity (conversation_id)`,
    `CREATE TRIGGER channel_message_fts_delete AFTER DELETE ON channel_messages
      WHEN old.id <= (SELECT indexed_to FROM channel_message_fts_state WHERE id = 1)
      BEGIN DELETE FROM channel_message_fts WHERE rowid = old.id; END`,
  ],
};
