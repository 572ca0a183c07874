import type { Migration } from '../../types.js';

/**
 * SQLite only: the conversation epoch of migration 040 becomes a change log. Every change to a
 * conversation or a visitor that the epoch counted (all but the per-message bookkeeping) now
 * writes the customer it concerns, so the send-message path's memory of known customers' open
 * conversations forgets that customer alone instead of everyone: an agent closing one
 * conversation no longer sends every other customer's next message down the slow path.
 * A change of channel or customer id writes both the old and the new customer.
 */
const logOld = `INSERT INTO conversation_changes (channel_id, customer_id) VALUES (OLD.channel_id, OLD.customer_id);`;
const logNewIfMoved = `INSERT INTO conversation_changes (channel_id, customer_id) SELECT NEW.channel_id, NEW.customer_id WHERE NEW.channel_id <> OLD.channel_id OR NEW.customer_id <> OLD.customer_id;`;

export const conversationChanges: Migration = {
  version: 129,
  name: 'conversation-changes',
  statements: [
    `DROP TRIGGER conversation_epoch_update`,
    `DROP TRIGGER conversation_epoch_delete`,
    `DROP TRIGGER conversation_epoch_visitor`,
    `DROP TABLE conversation_epoch`,
    `CREATE TABLE conversation_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, channel_id INTEGER NOT NULL, customer_id TEXT NOT NULL)`,
    `CREATE TRIGGER conversation_changes_update
      AFTER UPDATE OF tenant_id, channel_id, visitor_id, customer_id, state, queue_id, agent_id, vip, queued_at, created_at, closed_at ON conversations
      BEGIN ${logOld} ${logNewIfMoved} END`,
    `CREATE TRIGGER conversation_changes_delete
      AFTER DELETE ON conversations
      BEGIN ${logOld} END`,
    `CREATE TRIGGER conversation_changes_visitor
      AFTER UPDATE OF profile, tags, channel_id, customer_id ON channel_visitors
      BEGIN ${logOld} ${logNewIfMoved} END`,
  ],
};
