import type { Migration } from '../../types.js';

/**
 * An index under each foreign key whose parent rows are deleted, so the delete (and its CASCADE or
 * SET NULL) finds the child rows without scanning the child table: deleting an agent (its tokens,
 * its replies), a skill group, or an association (its visitors' conversations, their deliveries).
 * Nullable keys are indexed where set only, so rows without one cost nothing to insert.
 */
export const foreignKeyIndexes: Migration = {
  version: 76,
  name: 'foreign-key-indexes',
  statements: [
    `CREATE INDEX access_tokens_user ON access_tokens (user_id)`,
    `CREATE INDEX rest_channels_agent_queue ON rest_channels (agent_queue_id) WHERE agent_queue_id IS NOT NULL`,
    `CREATE INDEX conversations_visitor ON conversations (visitor_id)`,
    `CREATE INDEX channel_messages_agent ON channel_messages (agent_id) WHERE agent_id IS NOT NULL`,
    `CREATE INDEX deliveries_conversation ON deliveries (conversation_id)`,
  ],
};
