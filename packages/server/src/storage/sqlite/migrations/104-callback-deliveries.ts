import type { Migration } from '../../types.js';

/**
 * The durable delivery log: one row per post-send callback attempt, written in batches, kept for
 * the exception store's retention, searched by app with msg_id, user, rule, status and time.
 */
export const callbackDeliveries: Migration = {
  version: 104,
  name: 'callback-deliveries',
  statements: [
    `CREATE TABLE callback_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      app_id TEXT NOT NULL,
      rule_id INTEGER NOT NULL,
      rule_name TEXT NOT NULL,
      call_id TEXT NOT NULL,
      msg_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      from_user TEXT NOT NULL,
      to_user TEXT NOT NULL,
      status TEXT NOT NULL,
      http_status INTEGER,
      duration_ms INTEGER NOT NULL,
      error TEXT,
      resend INTEGER NOT NULL,
      at INTEGER NOT NULL
    )`,
    `CREATE INDEX callback_deliveries_app ON callback_deliveries (app_id, id)`,
    `CREATE INDEX callback_deliveries_msg ON callback_deliveries (app_id, msg_id)`,
    `CREATE INDEX callback_deliveries_at ON callback_deliveries (at)`,
  ],
};
