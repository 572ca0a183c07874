import type { Migration } from '../../types.js';

/**
 * The conversation list's default order (`sort=latest`: the last message or change of state, most
 * recent first) over every state or the closed ones (the history page) walks this index from its
 * end instead of sorting every conversation of the tenant. The price: a customer message moves
 * `updated_at`, so its update of the conversation is no longer a heap-only (HOT) update and writes
 * an entry in each index of the row; `bench:inbox` and `bench:ingest` weigh the two
 * (bench/README.md).
 */
export const conversationsLatest: Migration = {
  version: 118,
  name: 'conversations-latest',
  statements: [`CREATE INDEX conversations_tenant_updated ON conversations (tenant_id, updated_at, id)`],
};
