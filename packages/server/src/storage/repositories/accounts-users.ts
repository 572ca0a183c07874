/** Users of the accounts port: console accounts and agents, with the skill groups (queues) an agent serves. */
import type { Kysely, Selectable } from 'kysely';
import type { AccountsRepository, NewUser, User } from '../../modules/accounts/ports.js';
import type { UsersTable } from '../tables/accounts.js';
import type { Database } from '../schema.js';

export type UsersRepository = Pick<
  AccountsRepository,
  'createUser' | 'findUserByUsername' | 'getUser' | 'listAgents' | 'queueIdsOf' | 'setStatus' | 'hasSystemAdmin' | 'resetPassword'
>;

export const toUser = (row: Selectable<UsersTable>): User => ({
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

/** Inserts a user and its queue links; the caller's transaction makes the two one write. */
export async function insertUser(db: Kysely<Database>, input: NewUser, now: number): Promise<User> {
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

export function kyselyUsersRepository(db: Kysely<Database>): UsersRepository {
  return {
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
    async resetPassword(userId, passwordHash) {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
        await trx.deleteFrom('access_tokens').where('user_id', '=', userId).execute();
      });
    },
    async hasSystemAdmin() {
      const row = await db.selectFrom('users').select('id').where('role', '=', 'system_admin').executeTakeFirst();
      return row !== undefined;
    },
  };
}
