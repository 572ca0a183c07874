import type { Migration } from '../../types.js';

/**
 * Requests to join a group that needs its owner's approval, until the owner accepts or declines;
 * gone with the group or the user.
 */
export const imGroupRequests: Migration = {
  version: 106,
  name: 'im-group-requests',
  statements: [
    `CREATE TABLE im_group_requests (
      group_id TEXT NOT NULL REFERENCES im_groups(id) ON DELETE CASCADE,
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (group_id, username),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_group_requests_user ON im_group_requests (app_id, username)`,
  ],
};
