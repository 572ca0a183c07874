import type { Migration } from '../../types.js';

/**
 * Which device took which of a user's own copies (modules/im/devices.ts): an own copy kept for the
 * user's devices offline at the moment of a send (`im_offline`), or an own recall or edit kept for
 * them (`im_pending_events`), stays until every other device of theirs took it, and a device that
 * took it does not read it again. Deleted with the copy or the event.
 */
export const imDeviceTakes: Migration = {
  version: 139,
  name: 'im-device-takes',
  statements: [
    `CREATE TABLE im_offline_takes (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      msg_id INTEGER NOT NULL,
      resource TEXT NOT NULL,
      PRIMARY KEY (app_id, username, msg_id, resource),
      FOREIGN KEY (app_id, username, msg_id) REFERENCES im_offline(app_id, username, msg_id) ON DELETE CASCADE
    )`,
    `CREATE TABLE im_pending_event_takes (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      id INTEGER NOT NULL,
      resource TEXT NOT NULL,
      PRIMARY KEY (app_id, username, id, resource),
      FOREIGN KEY (app_id, username, id) REFERENCES im_pending_events(app_id, username, id) ON DELETE CASCADE
    )`,
  ],
};
