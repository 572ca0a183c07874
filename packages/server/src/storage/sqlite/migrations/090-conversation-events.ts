import type { Migration } from '../../types.js';

/**
 * Conversation events for the integrator (contract 6.4) travel as deliveries: a delivery without
 * a message (`message_id` null) and with the event's name (`event`). SQLite cannot drop a NOT
 * NULL, so `deliveries` is rebuilt (with `delivery_attempts`, whose key points at it; the rename
 * carries the reference over). Associations gain their `events` setting (a JSON array).
 */
export const conversationEvents: Migration = {
  version: 90,
  name: 'conversation-events',
  statements: [
    `CREATE TABLE deliveries_v90 (
      id TEXT PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES rest_channels(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      message_id INTEGER REFERENCES channel_messages(id) ON DELETE CASCADE,
      customer_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      body TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      event TEXT
    )`,
    `INSERT INTO deliveries_v90 (id, tenant_id, channel_id, conversation_id, message_id, customer_id, status, body, attempts, next_attempt_at, last_error, created_at, updated_at)
      SELECT id, tenant_id, channel_id, conversation_id, message_id, customer_id, status, body, attempts, next_attempt_at, last_error, created_at, updated_at FROM deliveries`,
    `CREATE TABLE delivery_attempts_v90 (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      delivery_id TEXT NOT NULL REFERENCES deliveries_v90(id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      status_code INTEGER,
      latency_ms INTEGER NOT NULL,
      error TEXT,
      succeeded INTEGER NOT NULL
    )`,
    `INSERT INTO delivery_attempts_v90 (id, delivery_id, attempt, started_at, status_code, latency_ms, error, succeeded)
      SELECT id, delivery_id, attempt, started_at, status_code, latency_ms, error, succeeded FROM delivery_attempts`,
    `DROP TABLE delivery_attempts`,
    `DROP TABLE deliveries`,
    `ALTER TABLE deliveries_v90 RENAME TO deliveries`,
    `ALTER TABLE delivery_attempts_v90 RENAME TO delivery_attempts`,
    `CREATE INDEX deliveries_channel ON deliveries (channel_id, status, created_at)`,
    `CREATE INDEX deliveries_message ON deliveries (message_id)`,
    `CREATE INDEX deliveries_conversation ON deliveries (conversation_id)`,
    `CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt)`,
    `ALTER TABLE rest_channels ADD COLUMN events TEXT NOT NULL DEFAULT '[]'`,
  ],
};
