import type { Migration } from '../../types.js';

/**
 * The messages whose fan-out has not run yet get a table of their own: a row is inserted with the
 * message and deleted by its fan-out, so the hot path never updates an `im_messages` row (an update
 * of `fanout_done`, a column of migration 75's partial index, wrote a new entry into every index of
 * `im_messages` on PostgreSQL). The offline reads find a user's pending messages through its receiver
 * index, as they found them through migration 75's index, which goes; `im_messages.fanout_done`
 * stays as a column no code reads or writes any more. A row goes with its message (recall, history
 * removal, the app's deletion). On SQLite the table is WITHOUT ROWID: its key is its only b-tree
 * besides the receiver index.
 */
export const imPendingFanoutTable: Migration = {
  version: 115,
  name: 'im-pending-fanout-table',
  statements: [
    `CREATE TABLE im_pending_fanout (
      app_id TEXT NOT NULL,
      msg_id BIGINT NOT NULL,
      receiver TEXT NOT NULL,
      chat_type TEXT NOT NULL CHECK (chat_type IN ('chat', 'groupchat', 'chatroom')),
      PRIMARY KEY (app_id, msg_id),
      FOREIGN KEY (app_id, msg_id) REFERENCES im_messages(app_id, msg_id) ON DELETE CASCADE
    ) WITHOUT ROWID`,
    `CREATE INDEX im_pending_fanout_receiver ON im_pending_fanout (app_id, receiver, msg_id)`,
    `INSERT INTO im_pending_fanout (app_id, msg_id, receiver, chat_type) SELECT app_id, msg_id, receiver, chat_type FROM im_messages WHERE fanout_done = 0`,
    `DROP INDEX im_messages_pending_fanout`,
  ],
};
