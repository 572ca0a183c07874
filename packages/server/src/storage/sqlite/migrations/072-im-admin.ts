import type { Migration } from '../../types.js';

/**
 * IM administration: groups and chat rooms record their last edit (`last_modified` in lists), and
 * the paged lists read users oldest first and groups newest first along an index.
 */
export const imAdmin: Migration = {
  version: 72,
  name: 'im-admin',
  statements: [
    `ALTER TABLE im_groups ADD COLUMN modified_at INTEGER NOT NULL DEFAULT 0`,
    `UPDATE im_groups SET modified_at = created_at`,
    `CREATE INDEX im_users_listed ON im_users (app_id, created_at, username)`,
    `CREATE INDEX im_groups_listed ON im_groups (app_id, kind, created_at, id)`,
  ],
};
