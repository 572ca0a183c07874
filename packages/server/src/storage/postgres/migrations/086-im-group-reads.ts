import type { Migration } from '../../types.js';

/**
 * Who read a group message (group read receipts, `GET /chatgroups/{id}/acks/{msgId}`), gone with the
 * message; and the receipts and recalls a live push did not reach, kept for the user's next socket
 * (a JSON frame each), gone with the user.
 */
export const imGroupReads: Migration = {
  version: 86,
  name: 'im-group-reads',
  statements: [
    `CREATE TABLE im_group_reads (
      app_id TEXT NOT NULL,
      msg_id BIGINT NOT NULL,
      username TEXT NOT NULL,
      read_at BIGINT NOT NULL,
      PRIMARY KEY (app_id, msg_id, username),
      FOREIGN KEY (app_id, msg_id) REFERENCES im_messages(app_id, msg_id) ON DELETE CASCADE
    )`,
    `CREATE TABLE im_pending_events (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      id BIGINT NOT NULL,
      frame TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (app_id, username, id),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
  ],
};
