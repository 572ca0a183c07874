import type { Migration } from '../../types.js';

/**
 * Messages sent for online receivers only (Easemob's `deliverOnlineOnly`, msync `routetype`
 * ONLINE: typing indicators): 1 means the fan-out never stores them for offline receivers. And how
 * many times a message was edited (`modifyMessage`).
 */
export const imOnlineOnly: Migration = {
  version: 85,
  name: 'im-online-only',
  statements: [`ALTER TABLE im_messages ADD COLUMN online_only INTEGER NOT NULL DEFAULT 0`, `ALTER TABLE im_messages ADD COLUMN edits INTEGER NOT NULL DEFAULT 0`],
};
