import type { Migration } from '../../types.js';

/** Area A: REST associations, visitors, conversations, messages, reply deliveries, media. */
export const channel: Migration = {
  version: 10,
  name: 'channel',
  statements: [
    `CREATE TABLE rest_channels (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      callback_url TEXT NOT NULL,
      client_id TEXT NOT NULL UNIQUE,
      secret_sealed TEXT NOT NULL,
      agent_queue_id INTEGER REFERENCES skill_groups(id) ON DELETE SET NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE INDEX rest_channels_tenant ON rest_channels (tenant_id)`,
    `CREATE TABLE channel_visitors (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel_id INTEGER NOT NULL REFERENCES rest_channels(id) ON DELETE CASCADE,
      customer_id TEXT NOT NULL,
      profile TEXT NOT NULL,
      tags TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (channel_id, customer_id)
    )`,
    `CREATE TABLE conversations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES rest_channels(id) ON DELETE CASCADE,
      visitor_id INTEGER NOT NULL REFERENCES channel_visitors(id) ON DELETE CASCADE,
      customer_id TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('waiting', 'processing', 'closed')),
      queue_id INTEGER NOT NULL,
      agent_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      vip INTEGER NOT NULL DEFAULT 0,
      queued_at INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      closed_at INTEGER,
      last_message_id INTEGER
    )`,
    // One open conversation per customer per association, enforced by the database so that
    // concurrent first messages cannot open two.
    `CREATE UNIQUE INDEX conversations_open_customer ON conversations (channel_id, customer_id) WHERE state <> 'closed'`,
    `CREATE INDEX conversations_queue ON conversations (tenant_id, state, queue_id, vip, queued_at)`,
    `CREATE INDEX conversations_agent ON conversations (agent_id, state)`,
    `CREATE TABLE channel_messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES rest_channels(id) ON DELETE CASCADE,
      direction TEXT NOT NULL CHECK (direction IN ('customer', 'agent')),
      msg_id TEXT NOT NULL,
      agent_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      bodies TEXT NOT NULL,
      ext TEXT NOT NULL,
      timestamp INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (channel_id, direction, msg_id)
    )`,
    `CREATE INDEX channel_messages_conversation ON channel_messages (conversation_id, id)`,
    `CREATE TABLE deliveries (
      id TEXT PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES rest_channels(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      message_id INTEGER NOT NULL REFERENCES channel_messages(id) ON DELETE CASCADE,
      customer_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      body TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE INDEX deliveries_channel ON deliveries (channel_id, status, created_at)`,
    `CREATE INDEX deliveries_message ON deliveries (message_id)`,
    `CREATE TABLE delivery_attempts (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      status_code INTEGER,
      latency_ms INTEGER NOT NULL,
      error TEXT,
      succeeded INTEGER NOT NULL
    )`,
    `CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt)`,
    `CREATE TABLE channel_media (
      id TEXT PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      filename TEXT NOT NULL,
      content_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    )`,
  ],
};
