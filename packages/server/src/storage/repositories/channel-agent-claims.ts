/**
 * Agent assignment in storage: the least-loaded online agent of a queue, claimed under its row
 * lock so that concurrent assignments on several instances never exceed `max_sessions`, and the
 * guarded state move of a conversation.
 */
import { sql, type Kysely } from 'kysely';
import type { ConversationState } from '@parley/protocol';
import type { ConversationsRepository } from '../../modules/channel/ports.js';
import type { Database } from '../schema.js';

/** Online agents of a queue with their open-conversation count; least loaded with room first. */
export async function leastLoadedAgent(db: Kysely<Database>, queueId: number): Promise<number | undefined> {
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
  const free = rows
    .map((r) => ({ id: r.id, max: r.max, load: Number(r.load ?? 0) }))
    .filter((r) => r.load < r.max)
    .sort((a, b) => a.load - b.load || a.id - b.id);
  return free[0]?.id;
}

/**
 * Locks the agent's row (a no-op UPDATE: a row lock on PostgreSQL, the write lock on SQLite) and
 * tells whether the agent still has room. Concurrent assignments to one agent on several
 * instances thus queue on the row, and each sees the others' committed conversations.
 */
export async function lockAgentWithRoom(trx: Kysely<Database>, agentId: number): Promise<boolean> {
  const agent = await trx.updateTable('users').set({ max_sessions: sql`max_sessions` }).where('id', '=', agentId).returning('max_sessions').executeTakeFirst();
  if (!agent) return false;
  const load = await trx
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('state', '=', 'processing')
    .executeTakeFirst();
  return Number(load?.n ?? 0) < agent.max_sessions;
}

/** The least-loaded agent of the queue whose room holds under its row lock (see above). */
export async function claimAgent(trx: Kysely<Database>, queueId: number): Promise<number | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const agentId = await leastLoadedAgent(trx, queueId);
    if (agentId === undefined || (await lockAgentWithRoom(trx, agentId))) return agentId;
  }
  return undefined;
}

export type Move = Parameters<ConversationsRepository['assign']>[2];

export async function moveConversation(db: Kysely<Database>, id: number, from: ConversationState[], to: Move, now: number): Promise<boolean> {
  const result = await db
    .updateTable('conversations')
    .set({
      state: to.state,
      agent_id: to.agentId,
      updated_at: now,
      ...(to.queueId !== undefined ? { queue_id: to.queueId } : {}),
      ...(to.requeueAt !== undefined ? { queued_at: to.requeueAt } : {}),
      ...(to.state === 'closed' ? { closed_at: now } : {}),
    })
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
