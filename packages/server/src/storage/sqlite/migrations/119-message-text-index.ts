import type { Migration } from '../../types.js';

/** The text of a message's `txt` bodies, each folded by `parley_lower` (sqlite/open.ts), joined by a line feed; NULL when it has none. */
const folded = (row: string) => `(SELECT group_concat(parley_lower(json_extract(b.value, '$.msg')), char(10))
  FROM json_each(${row}.bodies) b WHERE json_extract(b.value, '$.type') = 'txt')`;

const insertNew = `INSERT INTO channel_message_text (rowid, text) SELECT new.id, t FROM (SELECT ${folded('new')} AS t) WHERE t IS NOT NULL;`;

/**
 * The conversation list's text search (`q`) without reading every message: an FTS5 table with the
 * trigram tokenizer over the folded text of each message's `txt` bodies (rowid = the message's
 * id), so a needle of 3 characters or more is found as a substring through the index (the
 * semantics stay those of docs/channel.md: case-insensitive substring, folded as JavaScript folds).
 * The table is contentless (it keeps the index, not a second copy of the text). Triggers keep it
 * in step with every writer of `channel_messages`, foreign-key cascades included; the statements
 * below fill it from the messages already stored, then merge what that one large write left into
 * one segment (`optimize`: without it, each later small write pays for merging the large ones).
 * The triggers call `parley_lower`, which every connection Parley opens registers: a message
 * written by another program (the `sqlite3` shell) fails with "no such function".
 */
export const messageTextIndex: Migration = {
  version: 119,
  name: 'message-text-index',
  statements: [
    `CREATE VIRTUAL TABLE channel_message_text USING fts5(text, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`,
    `INSERT INTO channel_message_text (rowid, text)
      SELECT id, t FROM (SELECT m.id, ${folded('m')} AS t FROM channel_messages m) WHERE t IS NOT NULL`,
    `INSERT INTO channel_message_text (channel_message_text) VALUES ('optimize')`,
    `CREATE TRIGGER channel_message_text_insert AFTER INSERT ON channel_messages BEGIN ${insertNew} END`,
    `CREATE TRIGGER channel_message_text_update AFTER UPDATE OF bodies ON channel_messages BEGIN
      DELETE FROM channel_message_text WHERE rowid = old.id; ${insertNew} END`,
    `CREATE TRIGGER channel_message_text_delete AFTER DELETE ON channel_messages BEGIN DELETE FROM channel_message_text WHERE rowid = old.id; END`,
  ],
};
