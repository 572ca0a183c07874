import type { Migration } from '../../types.js';

/**
 * Group and chat-room shared files (Easemob's `/chatgroups/{id}/share_files`): chat files that
 * belong to a group or room, with who uploaded them (NULL: the app). Same rows, store, quota and
 * retention as every chat file; the index serves a group's list, newest first.
 */
export const imSharedFiles: Migration = {
  version: 138,
  name: 'im-shared-files',
  statements: [
    `ALTER TABLE im_files ADD COLUMN group_id TEXT`,
    `ALTER TABLE im_files ADD COLUMN owner TEXT`,
    `CREATE INDEX im_files_group ON im_files (group_id, created_at, id) WHERE group_id IS NOT NULL`,
  ],
};
