import type { Migration } from '../../types.js';

/**
 * The agents' everyday tools (contract 6.4): private notes on a conversation, its labels, and
 * canned replies of the tenant (`owner_id` 0) or of one agent. A shortcut is unique per owner.
 */
export const agentTools: Migration = {
  version: 93,
  name: 'agent-tools',
  statements: [
    `CREATE TABLE conversation_notes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX conversation_notes_conversation ON conversation_notes (conversation_id, id)`,
    `CREATE INDEX conversation_notes_author ON conversation_notes (author_id)`,
    `CREATE INDEX conversation_notes_tenant ON conversation_notes (tenant_id)`,
    `CREATE TABLE conversation_labels (
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      label TEXT NOT NULL,
      PRIMARY KEY (conversation_id, label)
    )`,
    `CREATE INDEX conversation_labels_tenant_label ON conversation_labels (tenant_id, label)`,
    `CREATE TABLE canned_replies (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      owner_id INTEGER NOT NULL DEFAULT 0,
      shortcut TEXT NOT NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (tenant_id, owner_id, shortcut)
    )`,
  ],
};
