import type { Migration } from '../../types.js';

/**
 * An index of the offline store by message, under its foreign key to `im_messages`: deleting a
 * message (the history retention's sweep, a recall, a removal from history) finds its offline
 * rows without walking every offline row of the app, which the primary key
 * (app_id, username, msg_id) would make it do for each message deleted.
 */
export const imOfflineMessageIndex: Migration = {
  version: 132,
  name: 'im-offline-message-index',
  statements: [`CREATE INDEX im_offline_message ON im_offline (app_id, msg_id)`],
};
