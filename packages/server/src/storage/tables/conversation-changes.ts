/**
 * SQLite only (migration 129): the customers whose open conversation or visitor changed, other
 * than by the per-message bookkeeping, written by triggers. storage/sqlite/open-conversations.ts
 * reads it to forget those customers from its memory. PostgreSQL has no such table.
 */
export interface ConversationChangesTable {
  seq: number;
  channel_id: number;
  customer_id: string;
}

export interface ConversationChangesTables {
  conversation_changes: ConversationChangesTable;
}
