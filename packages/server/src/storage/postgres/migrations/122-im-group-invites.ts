import type { Migration } from '../../types.js';

/**
 * Invitations to a group that needs the invitee's confirmation (`invite_need_confirm`), until the
 * invitee accepts or declines; gone with the group or the invitee.
 */
export const imGroupInvites: Migration = {
  version: 122,
  name: 'im-group-invites',
  statements: [
    `CREATE TABLE im_group_invites (
      group_id TEXT NOT NULL REFERENCES im_groups(id) ON DELETE CASCADE,
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      inviter TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (group_id, username),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_group_invites_user ON im_group_invites (app_id, username)`,
  ],
};
