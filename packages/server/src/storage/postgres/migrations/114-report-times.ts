import type { Migration } from '../../types.js';

/**
 * The times reports measure (docs/channel.md, Reports): when a conversation was first assigned to
 * an agent, and when an agent first replied to it (automatic messages, which have no agent, do not
 * count). Existing conversations get their first reply from their messages; their first
 * assignment was never recorded and stays NULL. Reports read a tenant's conversations by the time
 * they opened.
 */
export const reportTimes: Migration = {
  version: 114,
  name: 'report-times',
  statements: [
    `ALTER TABLE conversations ADD COLUMN assigned_at BIGINT`,
    `ALTER TABLE conversations ADD COLUMN first_reply_at BIGINT`,
    `UPDATE conversations c SET first_reply_at = m.first_reply_at
      FROM (
        SELECT conversation_id, MIN(created_at) AS first_reply_at FROM channel_messages
        WHERE direction = 'agent' AND agent_id IS NOT NULL GROUP BY conversation_id
      ) m
      WHERE m.conversation_id = c.id`,
    `CREATE INDEX conversations_tenant_created ON conversations (tenant_id, created_at)`,
  ],
};
