/** Skill-group automation settings and a conversation's timer state (modules/channel/automation-ports.ts). */
import type { Kysely } from 'kysely';
import type { AutomationSettings } from '@parley/protocol';
import type { AutomationRepository } from '../../modules/channel/automation-ports.js';
import type { Database } from '../schema.js';

export function kyselyAutomationRepository(db: Kysely<Database>): AutomationRepository {
  return {
    async get(queueId) {
      const row = await db.selectFrom('queue_automation').select('settings').where('queue_id', '=', queueId).executeTakeFirst();
      return row && (JSON.parse(row.settings) as AutomationSettings);
    },
    async put(tenantId, queueId, settings, now) {
      const json = JSON.stringify(settings);
      await db
        .insertInto('queue_automation')
        .values({ queue_id: queueId, tenant_id: tenantId, settings: json, updated_at: now })
        .onConflict((oc) => oc.column('queue_id').doUpdateSet({ settings: json, updated_at: now }))
        .execute();
    },
    async timerState(conversationId) {
      const conv = await db.selectFrom('conversations').select(['created_at', 'idle_warned_at']).where('id', '=', conversationId).executeTakeFirst();
      if (!conv) return undefined;
      const last = await db
        .selectFrom('channel_messages')
        .select('created_at')
        .where('conversation_id', '=', conversationId)
        .where('direction', '=', 'customer')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return { lastCustomerAt: Number(last?.created_at ?? conv.created_at), idleWarnedAt: conv.idle_warned_at === null ? null : Number(conv.idle_warned_at) };
    },
    async markIdleWarned(conversationId, now) {
      await db.updateTable('conversations').set({ idle_warned_at: now }).where('id', '=', conversationId).execute();
    },
  };
}
