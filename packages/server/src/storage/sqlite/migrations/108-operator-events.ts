import type { Migration } from '../../types.js';

/**
 * Operator events (contract 6.7): the operations webhook of an IM app or a tenant (secret sealed),
 * and the events recorded for it: the outbox its sender works from and the console's notices.
 * An owner's event with a taken dedupe key is not recorded twice.
 */
export const operatorEvents: Migration = {
  version: 108,
  name: 'operator-events',
  statements: [
    `CREATE TABLE operations_webhooks (
      scope TEXT NOT NULL,
      owner_id TEXT NOT NULL,
      url TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (scope, owner_id)
    )`,
    `CREATE TABLE operator_events (
      id TEXT PRIMARY KEY,
      scope TEXT NOT NULL,
      owner_id TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      dedupe_key TEXT NOT NULL,
      at INTEGER NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE UNIQUE INDEX operator_events_dedupe ON operator_events (scope, owner_id, dedupe_key)`,
    `CREATE INDEX operator_events_owner ON operator_events (scope, owner_id, at)`,
    `CREATE INDEX operator_events_at ON operator_events (at)`,
  ],
};
