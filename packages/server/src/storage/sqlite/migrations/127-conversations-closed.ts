import type { Migration } from '../../types.js';

/**
 * The conversation list over the closed conversations (the history page, and every state by
 * latest activity) walks these instead of sorting every conversation of the tenant. Both are
 * partial on `state = 'closed'`: a new conversation (written by the send-message path) is never
 * in them, and the send path's per-message update (`last_message_id`, `updated_at`) changes none
 * of their columns. Only a close writes them.
 * - `conversations_closed_latest` (tenant, closed_at, id): a closed conversation's latest activity
 *   is its `closed_at` unless a message came after (conversation_late_activity, migration 126).
 * - `conversations_closed_newest` (tenant, id): `sort=newest` inside the closed state.
 */
export const conversationsClosed: Migration = {
  version: 127,
  name: 'conversations-closed',
  statements: [
    `CREATE INDEX conversations_closed_latest ON conversations (tenant_id, closed_at, id) WHERE state = 'closed'`,
    `CREATE INDEX conversations_closed_newest ON conversations (tenant_id, id) WHERE state = 'closed'`,
  ],
};
