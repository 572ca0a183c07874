import type { Migration } from '../../types.js';

/**
 * A group's announcement and whether all its members are muted (`disableSendGroupMsg`): one row
 * per group that has either, gone with the group.
 */
export const imGroupNotes: Migration = {
  version: 121,
  name: 'im-group-notes',
  statements: [
    `CREATE TABLE im_group_notes (
      group_id TEXT PRIMARY KEY REFERENCES im_groups(id) ON DELETE CASCADE,
      announcement TEXT NOT NULL DEFAULT '',
      all_muted INTEGER NOT NULL DEFAULT 0,
      modified_at BIGINT NOT NULL
    )`,
  ],
};
