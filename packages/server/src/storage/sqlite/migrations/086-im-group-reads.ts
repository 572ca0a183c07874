import type { Migration } from '../../types.js';

/** Who read a group message (group read receipts, `GET /chatgroups/{id}/acks/{msgId}`); gone with the message. */
export const imGroupReads: Migration = {
  version: 86,
  name: 'im-group-reads',
  statements: [
    `CREATE TABLE im_group_reads (
      app_id TEXT NOT NULL,
      msg_id INTEGER NOT NULL,
      username TEXT NOT NULL,
      read_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, msg_id, username),
      FOREIGN KEY (app_id, msg_id) REFERENCES im_messages(app_id, msg_id) ON DELETE CASCADE
    )`,
  ],
};
