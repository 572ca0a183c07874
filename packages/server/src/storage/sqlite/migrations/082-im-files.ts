import type { Migration } from '../../types.js';

/**
 * IM chat files (POST /{org}/{app}/chatfiles): rows of the one media store, by app. The share
 * secret is kept as its SHA-256 (hex); the quota counts by app, the retention sweep by age.
 */
export const imFiles: Migration = {
  version: 82,
  name: 'im-files',
  statements: [
    `CREATE TABLE im_files (
      id TEXT PRIMARY KEY,
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      secret_hash TEXT NOT NULL,
      filename TEXT NOT NULL,
      content_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX im_files_app ON im_files (app_id)`,
    `CREATE INDEX im_files_created ON im_files (created_at)`,
  ],
};
