/**
 * Editing of the accounts port (tenant name and edition, skill-group rename, user changes) and the
 * accounts writes of a transaction (a user's and a skill group's deletion, with their row locks).
 */
import { sql, type Kysely } from 'kysely';
import type { AccountsRepository, AccountsWrites, SkillGroupHolders, UserPatch } from '../../modules/accounts/ports.js';
import type { Database } from '../schema.js';
import { toTenant } from './accounts-tenants.js';
import { toUser } from './accounts-users.js';

export type AccountsAdminRepository = Pick<AccountsRepository, 'updateTenant' | 'renameSkillGroup' | 'updateUser'>;

type UpdateUser = AccountsRepository['updateUser'];

export function kyselyAccountsAdminRepository(db: Kysely<Database>): AccountsAdminRepository {
  return {
    async updateTenant(id, patch) {
      const row = await db
        .updateTable('tenants')
        .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.edition !== undefined ? { edition: patch.edition } : {}) })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toTenant(row);
    },
    async renameSkillGroup(tenantId, id, name) {
      const row = await db.updateTable('skill_groups').set({ name }).where('tenant_id', '=', tenantId).where('id', '=', id).returningAll().executeTakeFirst();
      return row && { id: row.id, tenantId: row.tenant_id, name: row.name };
    },
    updateUser: (userId, patch, revokeTokens) => updateUser(db, userId, patch, revokeTokens),
  };
}

/** The accounts writes of the transaction `trx`. */
export function accountsWrites(trx: Kysely<Database>): AccountsWrites {
  return {
    async lockUserOffline(userId) {
      // An UPDATE: a row lock on PostgreSQL, the write lock on SQLite.
      return (await trx.updateTable('users').set({ status: 'offline' }).where('id', '=', userId).returning('id').executeTakeFirst()) !== undefined;
    },
    async deleteUser(userId) {
      await trx.deleteFrom('access_tokens').where('user_id', '=', userId).execute();
      await trx.deleteFrom('agent_queues').where('user_id', '=', userId).execute();
      await trx.deleteFrom('users').where('id', '=', userId).execute();
    },
    async lockSkillGroup(tenantId, id) {
      // A no-op UPDATE locks the group's row for the check and the delete.
      const group = await trx.updateTable('skill_groups').set({ name: sql`name` }).where('tenant_id', '=', tenantId).where('id', '=', id).returning('id').executeTakeFirst();
      if (!group) return undefined;
      const tenant = await trx.selectFrom('tenants').select('default_queue_id').where('id', '=', tenantId).executeTakeFirst();
      const associations = await trx.selectFrom('rest_channels').select(['id', 'name']).where('tenant_id', '=', tenantId).where('agent_queue_id', '=', id).orderBy('id').execute();
      const open = await trx
        .selectFrom('conversations')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('queue_id', '=', id)
        .where('state', 'in', ['waiting', 'processing'])
        .executeTakeFirst();
      return { tenantDefault: tenant?.default_queue_id === id, associations, openConversations: Number(open?.n ?? 0) } satisfies SkillGroupHolders;
    },
    async deleteSkillGroup(id) {
      await trx.deleteFrom('agent_queues').where('queue_id', '=', id).execute();
      await trx.deleteFrom('skill_groups').where('id', '=', id).execute();
    },
  };
}

function userColumns(patch: UserPatch) {
  return {
    ...(patch.nickname !== undefined ? { nickname: patch.nickname } : {}),
    ...(patch.avatar !== undefined ? { avatar: patch.avatar } : {}),
    ...(patch.role !== undefined ? { role: patch.role } : {}),
    ...(patch.maxSessions !== undefined ? { max_sessions: patch.maxSessions } : {}),
    ...(patch.passwordHash !== undefined ? { password_hash: patch.passwordHash } : {}),
  };
}

async function updateUser(db: Kysely<Database>, userId: number, patch: UserPatch, revokeTokens: Parameters<UpdateUser>[2]): ReturnType<UpdateUser> {
  return db.transaction().execute(async (trx) => {
    const columns = userColumns(patch);
    // With nothing to set, the no-op still locks the row and answers it.
    const row = await trx
      .updateTable('users')
      .set({ ...columns, ...(Object.keys(columns).length ? {} : { max_sessions: sql<number>`max_sessions` }) })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    if (patch.queueIds !== undefined) {
      await trx.deleteFrom('agent_queues').where('user_id', '=', userId).execute();
      if (patch.queueIds.length) await trx.insertInto('agent_queues').values(patch.queueIds.map((queue_id) => ({ user_id: userId, queue_id }))).execute();
    }
    let revokedTokens = 0;
    if (revokeTokens) {
      let q = trx.deleteFrom('access_tokens').where('user_id', '=', userId);
      if (revokeTokens.keepHash !== undefined) q = q.where('token_hash', '<>', revokeTokens.keepHash);
      revokedTokens = Number((await q.executeTakeFirst()).numDeletedRows);
    }
    return { user: toUser(row), revokedTokens };
  });
}
