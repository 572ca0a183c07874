import type { Migration } from '../../types.js';

export const callbacks: Migration = {
  version: 30,
  name: 'callbacks',
  statements: [
    `CREATE TABLE callback_settings (
      app_id TEXT PRIMARY KEY,
      enabled INTEGER NOT NULL DEFAULT 0,
      store_failed INTEGER NOT NULL DEFAULT 0,
      updated_at INTEGER NOT NULL
    )`,
    // slot 1..4 with UNIQUE (app_id, slot) enforces "at most 4 rules per app" without a race.
    `CREATE TABLE callback_rules (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      app_id TEXT NOT NULL,
      slot INTEGER NOT NULL CHECK (slot BETWEEN 1 AND 4),
      name TEXT NOT NULL,
      url TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      event_types TEXT NOT NULL,
      chat_types TEXT NOT NULL,
      message_types TEXT NOT NULL,
      sources TEXT NOT NULL,
      secret TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'banned')),
      ban_count INTEGER NOT NULL DEFAULT 0,
      banned_until INTEGER,
      ban_state TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (app_id, name),
      UNIQUE (app_id, slot)
    )`,
    // No foreign key to the rule: stored records outlive a deleted rule (re-send to targetUrl).
    `CREATE TABLE callback_stored (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      app_id TEXT NOT NULL,
      date_key TEXT NOT NULL,
      call_id TEXT NOT NULL,
      rule_id INTEGER,
      rule_name TEXT NOT NULL,
      event_type TEXT NOT NULL,
      msg_id TEXT NOT NULL,
      record TEXT NOT NULL,
      last_error TEXT NOT NULL,
      stored_at INTEGER NOT NULL
    )`,
    `CREATE INDEX callback_stored_key ON callback_stored (app_id, date_key, id)`,
    `CREATE INDEX callback_stored_age ON callback_stored (stored_at)`,
    `CREATE TABLE callback_store_keys (
      app_id TEXT NOT NULL,
      date_key TEXT NOT NULL,
      retry INTEGER NOT NULL DEFAULT 0,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, date_key)
    )`,
  ],
};
