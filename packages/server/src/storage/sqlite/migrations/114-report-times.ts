import type { Migration } from '../../types.js';

/**
 * The times reports measure (docs/channel.md, Reports): when a conversation was first assigned to
 * an agent, and when an agent first replied to it (automatic messages, which have no agent, do not
 * count). Existing conversations get their first reply from their messages; their first
 * assignment was never recorded and stays NULL. Reports read a tenant's conversations by the time
 * they opened. Neither column moves the conversation epoch (migration 40 lists the columns that do).
 */
export const reportTimes: Migration = {
  version: 114,
  name: 'report-times',
  statements: [
    `ALTER TABLE conversations ADD COLUMN assigned_at INTEGER`,
    `ALTER TABLE conversations ADD COLUMN first_reply_at INTEGER`,
    `UPDATE conversations SET first_reply_at = (
      SELECT MIN(m.created_at) FROM channel_messages m
      WHERE m.conversation_id = conversations.id AND m.direction = 'agent' AND m.agent_id IS NOT NULL
    )`,
    `CREATE INDEX conversations_tenant_created ON conversations (tenant_id, created_at)`,
  ],
};
