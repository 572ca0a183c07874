import type { Migration } from '../../types.js';

/**
 * A group's admins, muted members, block list and allow list: one row per (group, list, user).
 * `expires_at` is a mute's end (ms; NULL: until unmuted); the other lists leave it NULL. Gone with
 * the group or the user.
 */
export const imGroupLists: Migration = {
  version: 120,
  name: 'im-group-lists',
  statements: [
    `CREATE TABLE im_group_lists (
      group_id TEXT NOT NULL REFERENCES im_groups(id) ON DELETE CASCADE,
      list TEXT NOT NULL,
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      expires_at BIGINT,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (group_id, list, username),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_group_lists_user ON im_group_lists (app_id, username)`,
  ],
};
