import type { Migration } from '../../types.js';

/**
 * SQLite only: a counter that every change to a conversation moves, except the per-message
 * bookkeeping (last_message_id, updated_at). The send-message path keeps known customers' open
 * conversations in memory and reads this counter once per batch, inside the batch's transaction:
 * if anything else changed a conversation (an agent closed or transferred it, a deletion
 * cascaded, an agent's deletion cleared agent_id), the counter moved and the memory is dropped.
 * Triggers see every writer, foreign-key actions included, so no code path can forget it.
 */
export const conversationEpoch: Migration = {
  version: 40,
  name: 'conversation-epoch',
  statements: [
    `CREATE TABLE conversation_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`,
    `INSERT INTO conversation_epoch (id, n) VALUES (1, 0)`,
    `CREATE TRIGGER conversation_epoch_update
      AFTER UPDATE OF tenant_id, channel_id, visitor_id, customer_id, state, queue_id, agent_id, vip, queued_at, created_at, closed_at ON conversations
      BEGIN UPDATE conversation_epoch SET n = n + 1 WHERE id = 1; END`,
    `CREATE TRIGGER conversation_epoch_delete
      AFTER DELETE ON conversations
      BEGIN UPDATE conversation_epoch SET n = n + 1 WHERE id = 1; END`,
    `CREATE TRIGGER conversation_epoch_visitor
      AFTER UPDATE OF profile, tags, channel_id, customer_id ON channel_visitors
      BEGIN UPDATE conversation_epoch SET n = n + 1 WHERE id = 1; END`,
  ],
};
