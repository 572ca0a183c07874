/**
 * Agent assignment's storage side (AgentClaims, modules/channel/ports.ts): the loads of a queue's
 * online agents, an agent's row locked with its load, and the guarded state move of a
 * conversation. Which agent gets a conversation is decided in modules/channel/assignment.ts.
 */
import { sql, type Kysely } from 'kysely';
import type { ConversationState } from '@parley/protocol';
import type { AgentLoad, ConversationMove } from '../../modules/channel/ports.js';
import type { Database } from '../schema.js';

/** Online agents of a queue with their count of conversations in processing. */
export async function agentLoads(db: Kysely<Database>, queueId: number): Promise<AgentLoad[]> {
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('agent_queues as q', 'q.user_id', 'u.id')
    .select((eb) => [
      'u.id as id',
      'u.max_sessions as max',
      eb
        .selectFrom('conversations as c')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('c.agent_id', '=', 'u.id')
        .where('c.state', '=', 'processing')
        .as('load'),
    ])
    .where('q.queue_id', '=', queueId)
    .where('u.status', '=', 'online')
    .execute();
  return rows.map((r) => ({ id: r.id, max: r.max, load: Number(r.load ?? 0) }));
}

/**
 * Locks the agent's row (a no-op UPDATE: a row lock on PostgreSQL, the write lock on SQLite) and
 * answers its load under that lock.
 */
export async function lockAgent(trx: Kysely<Database>, agentId: number): Promise<AgentLoad | undefined> {
  const agent = await trx.updateTable('users').set({ max_sessions: sql`max_sessions` }).where('id', '=', agentId).returning('max_sessions').executeTakeFirst();
  if (!agent) return undefined;
  const load = await trx
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('state', '=', 'processing')
    .executeTakeFirst();
  return { id: agentId, max: agent.max_sessions, load: Number(load?.n ?? 0) };
}

export async function moveConversation(db: Kysely<Database>, id: number, from: ConversationState[], to: ConversationMove, now: number): Promise<boolean> {
  const result = await db
    .updateTable('conversations')
    .set({
      state: to.state,
      agent_id: to.agentId,
      updated_at: now,
      ...(to.queueId !== undefined ? { queue_id: to.queueId } : {}),
      ...(to.requeueAt !== undefined ? { queued_at: to.requeueAt } : {}),
      ...(to.state === 'closed' ? { closed_at: now } : {}),
      // The first assignment stays: a transfer between agents does not restart the handle time.
      ...(to.state === 'processing' && to.agentId !== null ? { assigned_at: sql<number>`COALESCE(assigned_at, ${now})` } : {}),
    })
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** An agent's processing conversations back to waiting in their queues (queue time kept: they go first). */
export async function requeueAgentConversations(db: Kysely<Database>, agentId: number, now: number): Promise<Array<{ id: number; queueId: number }>> {
  const rows = await db
    .updateTable('conversations')
    .set({ state: 'waiting', agent_id: null, updated_at: now })
    .where('agent_id', '=', agentId)
    .where('state', '=', 'processing')
    .returning(['id', 'queue_id'])
    .execute();
  return rows.map((r) => ({ id: r.id, queueId: r.queue_id }));
}
