import type { Migration } from '../../types.js';

/**
 * Pre-send callback rules (contract 6.5): at most 4 per app (slot 1..4, UNIQUE (app_id, slot)),
 * names unique per app, the secret sealed as post-send rule secrets are.
 */
export const presendRules: Migration = {
  version: 103,
  name: 'presend-rules',
  statements: [
    `CREATE TABLE presend_rules (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      app_id TEXT NOT NULL,
      slot INTEGER NOT NULL CHECK (slot BETWEEN 1 AND 4),
      name TEXT NOT NULL,
      url TEXT NOT NULL,
      timeout_ms INTEGER NOT NULL,
      on_failure TEXT NOT NULL CHECK (on_failure IN ('allow', 'reject')),
      chat_types TEXT NOT NULL,
      message_types TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (app_id, name),
      UNIQUE (app_id, slot)
    )`,
  ],
};
