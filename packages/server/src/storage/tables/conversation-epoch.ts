/**
 * SQLite only (migration 040): a counter that triggers move on every change to a conversation or
 * a visitor except the per-message bookkeeping. storage/sqlite/open-conversations.ts reads it to
 * know whether the known customers it remembers are still valid. PostgreSQL has no such table.
 */
export interface ConversationEpochTable {
  /** Always 1: the table has one row. */
  id: number;
  n: number;
}

export interface ConversationEpochTables {
  conversation_epoch: ConversationEpochTable;
}
