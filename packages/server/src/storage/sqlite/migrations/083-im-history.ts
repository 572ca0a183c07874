import type { Migration } from '../../types.js';

/**
 * History roaming and the server conversation list read a conversation's messages by msg_id:
 * one-to-one by (sender, receiver) each way, a group's or room's by receiver.
 */
export const imHistory: Migration = {
  version: 83,
  name: 'im-history',
  statements: [
    `CREATE INDEX im_messages_pair ON im_messages (app_id, sender, receiver, msg_id)`,
    `CREATE INDEX im_messages_receiver ON im_messages (app_id, receiver, msg_id)`,
  ],
};
