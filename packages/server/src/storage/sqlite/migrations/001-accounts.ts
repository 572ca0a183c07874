import type { Migration } from '../../types.js';

export const accounts: Migration = {
  version: 1,
  name: 'accounts',
  statements: [
    `CREATE TABLE tenants (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      edition TEXT NOT NULL CHECK (edition IN ('flagship', 'standard')),
      default_queue_id INTEGER,
      vip_tags TEXT NOT NULL DEFAULT '["vip"]',
      created_at INTEGER NOT NULL
    )`,
    `CREATE TABLE users (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER REFERENCES tenants(id) ON DELETE CASCADE,
      username TEXT NOT NULL UNIQUE,
      password_hash TEXT NOT NULL,
      nickname TEXT NOT NULL,
      avatar TEXT,
      role TEXT NOT NULL CHECK (role IN ('system_admin', 'admin', 'agent')),
      max_sessions INTEGER NOT NULL DEFAULT 10,
      status TEXT NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'busy', 'offline')),
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX users_tenant ON users (tenant_id)`,
    `CREATE TABLE skill_groups (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (tenant_id, name)
    )`,
    `CREATE TABLE agent_queues (
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      queue_id INTEGER NOT NULL REFERENCES skill_groups(id) ON DELETE CASCADE,
      PRIMARY KEY (user_id, queue_id)
    )`,
    `CREATE INDEX agent_queues_queue ON agent_queues (queue_id)`,
    `CREATE TABLE access_tokens (
      token_hash TEXT PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at INTEGER NOT NULL
    )`,
    `CREATE INDEX access_tokens_expiry ON access_tokens (expires_at)`,
  ],
};
