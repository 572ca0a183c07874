import type { Migration } from '../../types.js';

/**
 * Per-app settings of the SDK surface (contract 6.8): the origins allowed to call the IM REST
 * routes from a browser (JSON array; no row: every origin), and user attributes (JSON object of
 * the user's own fields), removed with their user.
 */
export const imOriginsAttributes: Migration = {
  version: 80,
  name: 'im-origins-attributes',
  statements: [
    `CREATE TABLE im_allowed_origins (
      app_id TEXT PRIMARY KEY REFERENCES im_apps(id) ON DELETE CASCADE,
      origins TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE TABLE im_user_attributes (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      attributes TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (app_id, username),
      FOREIGN KEY (app_id, username) REFERENCES im_users(app_id, username) ON DELETE CASCADE
    )`,
  ],
};
