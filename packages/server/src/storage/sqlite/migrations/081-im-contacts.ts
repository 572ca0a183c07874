import type { Migration } from '../../types.js';

/**
 * Contacts (one row each way), pending contact requests, and each user's block list; every row
 * goes with either of its users.
 */
export const imContacts: Migration = {
  version: 81,
  name: 'im-contacts',
  statements: [
    `CREATE TABLE im_contacts (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      contact TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, username, contact),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE,
      FOREIGN KEY (app_id, contact) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_contacts_contact ON im_contacts (app_id, contact)`,
    `CREATE TABLE im_contact_requests (
      app_id TEXT NOT NULL,
      requester TEXT NOT NULL,
      target TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, requester, target),
      FOREIGN KEY (app_id, requester) REFERENCES im_users(app_id, username) ON DELETE CASCADE,
      FOREIGN KEY (app_id, target) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_contact_requests_target ON im_contact_requests (app_id, target)`,
    `CREATE TABLE im_blocks (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      blocked TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, username, blocked),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE,
      FOREIGN KEY (app_id, blocked) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_blocks_blocked ON im_blocks (app_id, blocked)`,
  ],
};
