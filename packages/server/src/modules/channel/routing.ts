/**
 * Where a new conversation goes (contract 3.2, routing order):
 *   1. `ext.agent_username` naming an agent of the tenant -> that agent, directly;
 *   2. `ext.queue_name` equal to a skill group's name -> that group;
 *   3. `ext.queue_id` naming a skill group of the tenant -> that group;
 *   4. the association's default group (`agentQueueId`);
 *   5. the tenant's default group.
 * A name or id that matches nothing falls through to the next rule rather than failing the
 * message: the customer's words must not be lost over a stale routing hint.
 * The conversation's queue is always set (rules 2-5 also apply when an agent is named), so a
 * transfer back to the queue has somewhere to go.
 */
import type { RoutingDirectory } from './ports.js';

export interface RoutingHints {
  agent_username?: string | undefined;
  queue_name?: string | undefined;
  queue_id?: string | undefined;
}

export interface Route {
  queueId: number;
  agentId: number | null;
  /** Which rule decided the queue, for logs and tests. */
  rule: 'agent_username' | 'queue_name' | 'queue_id' | 'association' | 'tenant';
}

export async function resolveRoute(
  directory: RoutingDirectory,
  tenant: { id: number; defaultQueueId: number },
  associationQueueId: number | null,
  hints: RoutingHints,
): Promise<Route> {
  const named = hints.agent_username?.trim();
  const agent = named ? await directory.agentByUsername(tenant.id, named.toLowerCase()) : undefined;
  const agentId = agent && agent.role !== 'system_admin' ? agent.id : null;

  const byName = hints.queue_name?.trim() ? await directory.queueByName(tenant.id, hints.queue_name.trim()) : undefined;
  const byId = !byName && hints.queue_id && /^\d{1,15}$/.test(hints.queue_id.trim()) ? await directory.queue(tenant.id, Number(hints.queue_id.trim())) : undefined;
  const queue = byName
    ? { queueId: byName.id, rule: 'queue_name' as const }
    : byId
      ? { queueId: byId.id, rule: 'queue_id' as const }
      : associationQueueId !== null
        ? { queueId: associationQueueId, rule: 'association' as const }
        : { queueId: tenant.defaultQueueId, rule: 'tenant' as const };
  return { queueId: queue.queueId, agentId, rule: agentId !== null ? 'agent_username' : queue.rule };
}
