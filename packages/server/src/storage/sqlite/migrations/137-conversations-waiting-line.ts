import type { Migration } from '../../types.js';

/**
 * The waiting-line index in the line's own order (VIPs first, then by time queued, then id), so the
 * head of a queue (the dispatcher's next conversation), a page of the line and the inbox's waiting
 * view are read in order from the index instead of sorting the queue's waiting conversations on
 * every read. Same leading columns as before (tenant, state, queue), so every reader of the old
 * index reads this one.
 */
export const conversationsWaitingLine: Migration = {
  version: 137,
  name: 'conversations-waiting-line',
  statements: [`DROP INDEX conversations_queue`, `CREATE INDEX conversations_queue ON conversations (tenant_id, state, queue_id, vip DESC, queued_at, id)`],
};
