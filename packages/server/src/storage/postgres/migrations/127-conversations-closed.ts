import type { Migration } from '../../types.js';

/**
 * The conversation list over the closed conversations (the history page, and every state by
 * latest activity) walks `conversations_closed_latest` (tenant, closed_at, id) instead of sorting
 * every conversation of the tenant: a closed conversation's latest activity is its `closed_at`
 * unless a message came after (conversation_late_activity, migration 126). The index is partial on
 * `state = 'closed'`, and neither `closed_at` nor `state` is written by the send-message path, so
 * its per-message update of `last_message_id` and `updated_at` stays heap-only (HOT) and a new
 * conversation is not in it. `sort=newest` walks the primary key here and needs no index.
 * `channel_visitors_tags` (GIN over the tags) serves the `label` filter's customer-tag half.
 */
export const conversationsClosed: Migration = {
  version: 127,
  name: 'conversations-closed',
  statements: [
    `CREATE INDEX conversations_closed_latest ON conversations (tenant_id, closed_at, id) WHERE state = 'closed'`,
    `CREATE INDEX channel_visitors_tags ON channel_visitors USING gin ((tags::jsonb) jsonb_path_ops)`,
  ],
};
