import type { Migration } from '../../types.js';

/**
 * A group's settings as Easemob's Web SDK creates it: joining needs the owner (`approval`), members
 * may invite (`allow_invites`), `invite_need_confirm` (stored and reported), and its `custom` text
 * and `avatar` URL.
 */
export const imGroupSettings: Migration = {
  version: 105,
  name: 'im-group-settings',
  statements: [
    `ALTER TABLE im_groups ADD COLUMN approval INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE im_groups ADD COLUMN allow_invites INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE im_groups ADD COLUMN invite_need_confirm INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE im_groups ADD COLUMN custom TEXT NOT NULL DEFAULT ''`,
    `ALTER TABLE im_groups ADD COLUMN avatar TEXT NOT NULL DEFAULT ''`,
  ],
};
