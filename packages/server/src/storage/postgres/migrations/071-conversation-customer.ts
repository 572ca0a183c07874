import type { Migration } from '../../types.js';

/**
 * The conversation list filters by customer id (`customer`) across closed conversations too, which
 * the open-conversation index does not cover. `updated_at` stays unindexed on purpose: every
 * customer message moves it, and on PostgreSQL an index on it would make each of those updates
 * rewrite every index of the row.
 */
export const conversationCustomer: Migration = {
  version: 71,
  name: 'conversation-customer',
  statements: [`CREATE INDEX conversations_tenant_customer ON conversations (tenant_id, customer_id)`],
};
