import type { Kysely, Selectable } from 'kysely';
import type { AccountsRepository, NewUser, SkillGroup, Tenant, User } from '../../modules/accounts/ports.js';
import type { TenantsTable, UsersTable } from '../tables/accounts.js';
import type { Database } from '../schema.js';

/** A tenant's row as the accounts port sees it (the channel's group commit reads it too). */
export const toTenant = (row: Selectable<TenantsTable>): Tenant => ({
  id: row.id,
  name: row.name,
  edition: row.edition,
  defaultQueueId: row.default_queue_id ?? 0,
  vipTags: JSON.parse(row.vip_tags) as string[],
  createdAt: row.created_at,
});

const toUser = (row: Selectable<UsersTable>): User => ({
  id: row.id,
  tenantId: row.tenant_id,
  username: row.username,
  passwordHash: row.password_hash,
  nickname: row.nickname,
  avatar: row.avatar,
  role: row.role,
  maxSessions: row.max_sessions,
  status: row.status,
  createdAt: row.created_at,
});

async function insertUser(db: Kysely<Database>, input: NewUser, now: number): Promise<User> {
  const row = await db
    .insertInto('users')
    .values({
      tenant_id: input.tenantId,
      username: input.username,
      password_hash: input.passwordHash,
      nickname: input.nickname,
      avatar: input.avatar,
      role: input.role,
      max_sessions: input.maxSessions,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (input.queueIds.length > 0) {
    await db
      .insertInto('agent_queues')
      .values(input.queueIds.map((queue_id) => ({ user_id: row.id, queue_id })))
      .execute();
  }
  return toUser(row);
}

export function kyselyAccountsRepository(db: Kysely<Database>): AccountsRepository {
  return {
    async createTenant(input, now) {
      return db.transaction().execute(async (trx) => {
        const tenantRow = await trx
          .insertInto('tenants')
          .values({ name: input.name, edition: input.edition, default_queue_id: null, created_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        const group = await trx
          .insertInto('skill_groups')
          .values({ tenant_id: tenantRow.id, name: 'default', created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const updated = await trx
          .updateTable('tenants')
          .set({ default_queue_id: group.id })
          .where('id', '=', tenantRow.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const admin = await insertUser(trx, { ...input.admin, tenantId: tenantRow.id, queueIds: [group.id] }, now);
        return { tenant: toTenant(updated), admin };
      });
    },
    async getTenant(id) {
      const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toTenant(row);
    },
    async listTenants() {
      return (await db.selectFrom('tenants').selectAll().orderBy('id').execute()).map(toTenant);
    },
    async setVipTags(tenantId, tags) {
      await db.updateTable('tenants').set({ vip_tags: JSON.stringify(tags) }).where('id', '=', tenantId).execute();
    },
    async countTenants() {
      const row = await db.selectFrom('tenants').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async createUser(input, now) {
      return db.transaction().execute((trx) => insertUser(trx, input, now));
    },
    async findUserByUsername(username) {
      const row = await db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
      return row && toUser(row);
    },
    async getUser(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async listAgents(tenantId) {
      const rows = await db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
      const links = rows.length
        ? await db
            .selectFrom('agent_queues')
            .select(['user_id', 'queue_id'])
            .where(
              'user_id',
              'in',
              rows.map((r) => r.id),
            )
            .orderBy('queue_id')
            .execute()
        : [];
      return rows.map((row) => ({
        ...toUser(row),
        queueIds: links.filter((l) => l.user_id === row.id).map((l) => l.queue_id),
      }));
    },
    async queueIdsOf(userId) {
      const rows = await db.selectFrom('agent_queues').select('queue_id').where('user_id', '=', userId).orderBy('queue_id').execute();
      return rows.map((r) => r.queue_id);
    },
    async setStatus(userId, status) {
      await db.updateTable('users').set({ status }).where('id', '=', userId).execute();
    },
    async hasSystemAdmin() {
      const row = await db.selectFrom('users').select('id').where('role', '=', 'system_admin').executeTakeFirst();
      return row !== undefined;
    },
    async createSkillGroup(tenantId, name, now): Promise<SkillGroup> {
      const row = await db
        .insertInto('skill_groups')
        .values({ tenant_id: tenantId, name, created_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { id: row.id, tenantId: row.tenant_id, name: row.name };
    },
    async listSkillGroups(tenantId) {
      const rows = await db.selectFrom('skill_groups').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
      return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id, name: row.name }));
    },
    async existingSkillGroupIds(tenantId, ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('skill_groups')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();
      return rows.map((r) => r.id);
    },
    async saveToken(tokenHash, userId, expiresAt) {
      await db.insertInto('access_tokens').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt }).execute();
    },
    async findToken(tokenHash) {
      const row = await db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && { userId: row.user_id, expiresAt: row.expires_at };
    },
    async deleteToken(tokenHash) {
      await db.deleteFrom('access_tokens').where('token_hash', '=', tokenHash).execute();
    },
    async deleteExpiredTokens(now) {
      const result = await db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
