import type { Kysely, Selectable } from 'kysely';
import { overlapOf } from '../../kernel/secret-overlap.js';
import { INTEGRATOR_EVENT_NAMES, type IntegratorEventName } from '@parley/protocol';
import type { AgentInfo, Association, AssociationsRepository, RoutingDirectory } from '../../modules/channel/ports.js';
import type { RestChannelsTable } from '../tables/channel.js';
import type { UsersTable } from '../tables/accounts.js';
import type { Database } from '../schema.js';

const toAssociation = (row: Selectable<RestChannelsTable>): Association => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  callbackUrl: row.callback_url,
  clientId: row.client_id,
  secretSealed: row.secret_sealed,
  previousSecret: overlapOf(row.previous_secret_sealed, row.previous_secret_until),
  agentQueueId: row.agent_queue_id,
  events: parseEvents(row.events),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The stored `events` setting; names this build does not know are dropped. */
function parseEvents(raw: string): IntegratorEventName[] {
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((e): e is IntegratorEventName => (INTEGRATOR_EVENT_NAMES as readonly unknown[]).includes(e)) : [];
  } catch {
    return [];
  }
}

export const toAgentInfo = (row: Selectable<UsersTable>): AgentInfo => ({
  id: row.id,
  tenantId: row.tenant_id ?? 0,
  username: row.username,
  nickname: row.nickname,
  avatar: row.avatar,
  role: row.role,
  status: row.status,
  maxSessions: row.max_sessions,
});

export function kyselyAssociationsRepository(db: Kysely<Database>): AssociationsRepository {
  return {
    async create(input) {
      const row = await db
        .insertInto('rest_channels')
        .values({
          tenant_id: input.tenantId,
          name: input.name,
          callback_url: input.callbackUrl,
          client_id: input.clientId,
          secret_sealed: input.secretSealed,
          agent_queue_id: input.agentQueueId,
          events: JSON.stringify(input.events),
          created_at: input.createdAt,
          updated_at: input.updatedAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAssociation(row);
    },
    async get(tenantId, id) {
      const row = await db.selectFrom('rest_channels').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toAssociation(row);
    },
    async findByClientId(clientId) {
      const row = await db.selectFrom('rest_channels').selectAll().where('client_id', '=', clientId).executeTakeFirst();
      return row && toAssociation(row);
    },
    async list(tenantId) {
      return (await db.selectFrom('rest_channels').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute()).map(toAssociation);
    },
    async update(tenantId, id, patch, now) {
      const row = await db
        .updateTable('rest_channels')
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.callbackUrl !== undefined ? { callback_url: patch.callbackUrl } : {}),
          ...(patch.agentQueueId !== undefined ? { agent_queue_id: patch.agentQueueId } : {}),
          ...(patch.secretSealed !== undefined ? { secret_sealed: patch.secretSealed } : {}),
          ...(patch.previousSecret !== undefined
            ? { previous_secret_sealed: patch.previousSecret?.previous ?? null, previous_secret_until: patch.previousSecret?.until ?? null }
            : {}),
          ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
          updated_at: now,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toAssociation(row);
    },
    async delete(tenantId, id) {
      const result = await db.deleteFrom('rest_channels').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export function kyselyRoutingDirectory(db: Kysely<Database>): RoutingDirectory {
  return {
    async agentByUsername(tenantId, username) {
      const row = await db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('username', '=', username).executeTakeFirst();
      return row && toAgentInfo(row);
    },
    async agent(tenantId, id) {
      const row = await db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toAgentInfo(row);
    },
    async queueByName(tenantId, name) {
      const row = await db.selectFrom('skill_groups').select(['id', 'tenant_id', 'name']).where('tenant_id', '=', tenantId).where('name', '=', name).executeTakeFirst();
      return row && { id: row.id, tenantId: row.tenant_id, name: row.name };
    },
    async queue(tenantId, id) {
      const row = await db.selectFrom('skill_groups').select(['id', 'tenant_id', 'name']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && { id: row.id, tenantId: row.tenant_id, name: row.name };
    },
    async queueIdsOfAgent(agentId) {
      const rows = await db.selectFrom('agent_queues').select('queue_id').where('user_id', '=', agentId).orderBy('queue_id').execute();
      return rows.map((r) => r.queue_id);
    },
  };
}
