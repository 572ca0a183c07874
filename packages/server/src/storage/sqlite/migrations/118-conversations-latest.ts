import type { Migration } from '../../types.js';

/**
 * The conversation list's default order (`sort=latest`: the last message or change of state, most
 * recent first) over every state or the closed ones (the history page) walks this index from its
 * end instead of sorting every conversation of the tenant. It costs each customer message one
 * index update (the message moves `updated_at`); `bench:inbox` and `bench:ingest` weigh the two
 * (bench/README.md). `sort=newest` inside one state (the closed ones) walks
 * `conversations_tenant_state` (its last key is the rowid) instead of sorting the state's rows
 * found through `conversations_queue`; only a change of state moves it. PostgreSQL needs neither
 * for that order (it walks the primary key), and there every index of the row costs each message.
 */
export const conversationsLatest: Migration = {
  version: 118,
  name: 'conversations-latest',
  statements: [
    `CREATE INDEX conversations_tenant_updated ON conversations (tenant_id, updated_at, id)`,
    `CREATE INDEX conversations_tenant_state ON conversations (tenant_id, state, id)`,
  ],
};
