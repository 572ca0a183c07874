import type { Migration } from '../../types.js';

/**
 * Automation per skill group (contract 6.4): its settings as JSON, and when a conversation was
 * last warned that it is idle (a warning counts until the customer writes again).
 */
export const queueAutomation: Migration = {
  version: 92,
  name: 'queue-automation',
  statements: [
    `CREATE TABLE queue_automation (
      queue_id INTEGER NOT NULL UNIQUE REFERENCES skill_groups(id) ON DELETE CASCADE,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      settings TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE INDEX queue_automation_tenant ON queue_automation (tenant_id)`,
    `ALTER TABLE conversations ADD COLUMN idle_warned_at INTEGER`,
  ],
};
