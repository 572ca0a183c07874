import type { Migration } from '../../types.js';

/**
 * Multi-device sync for devices offline at the moment of a send (modules/im/devices.ts):
 * - `im_devices`: the devices (msync resources, named JSON sockets) each user logged in with, and
 *   when they last did; a user's own message is stored for them only when they have another one;
 * - `im_offline.sent_from`: on a user's own copy of a message they sent, the resource of the device
 *   that sent it ('' for none, a REST `sync_device`), which never takes it; NULL on messages received;
 * - `im_pending_events.sent_from`: the same for the user's own recalls and edits kept for their other devices.
 */
export const imDevices: Migration = {
  version: 135,
  name: 'im-devices',
  statements: [
    `CREATE TABLE im_devices (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      resource TEXT NOT NULL,
      seen_at BIGINT NOT NULL,
      PRIMARY KEY (app_id, username, resource),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `ALTER TABLE im_offline ADD COLUMN sent_from TEXT`,
    `ALTER TABLE im_pending_events ADD COLUMN sent_from TEXT`,
  ],
};
