import type { Kysely, Selectable } from 'kysely';
import { overlapOf } from '../../kernel/secret-overlap.js';
import type { ImApp, ImAppsRepository, ImUser, ImUsersRepository } from '../../modules/im/ports.js';
import type { ImAppsTable, ImUsersTable } from '../tables/im.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { containsFolded } from './text-search.js';

const toApp = (row: Selectable<ImAppsTable>): ImApp => ({
  id: row.id,
  orgName: row.org_name,
  appName: row.app_name,
  appkey: `${row.org_name}#${row.app_name}`,
  clientId: row.client_id,
  clientSecretHash: row.client_secret_hash,
  previousSecretHash: overlapOf(row.previous_client_secret_hash, row.previous_secret_until),
  createdAt: row.created_at,
});

const toUser = (row: Selectable<ImUsersTable>): ImUser => ({
  appId: row.app_id,
  username: row.username,
  uuid: row.uuid,
  passwordHash: row.password_hash,
  nickname: row.nickname,
  createdAt: row.created_at,
  modifiedAt: row.modified_at,
});

export function kyselyImAppsRepository(db: Kysely<Database>): ImAppsRepository {
  return {
    async createApp(app) {
      const row = await db
        .insertInto('im_apps')
        .values({
          id: app.id,
          org_name: app.orgName,
          app_name: app.appName,
          client_id: app.clientId,
          client_secret_hash: app.clientSecretHash,
          created_at: app.createdAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApp(row);
    },
    async findApp(orgName, appName) {
      const row = await db.selectFrom('im_apps').selectAll().where('org_name', '=', orgName).where('app_name', '=', appName).executeTakeFirst();
      return row && toApp(row);
    },
    async findAppById(id) {
      const row = await db.selectFrom('im_apps').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toApp(row);
    },
    async listApps() {
      const rows = await db.selectFrom('im_apps').selectAll().orderBy('created_at').orderBy('org_name').orderBy('app_name').execute();
      return rows.map(toApp);
    },
    async setClientSecretHash(appId, hash, previous) {
      await db
        .updateTable('im_apps')
        .set({ client_secret_hash: hash, previous_client_secret_hash: previous?.previous ?? null, previous_secret_until: previous?.until ?? null })
        .where('id', '=', appId)
        .execute();
    },
    async saveToken(tokenHash, record) {
      await db.insertInto('im_tokens').values({ token_hash: tokenHash, app_id: record.appId, username: record.username, expires_at: record.expiresAt }).execute();
    },
    async findToken(tokenHash) {
      const row = await db.selectFrom('im_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && { appId: row.app_id, username: row.username, expiresAt: row.expires_at };
    },
    async deleteExpiredTokens(now) {
      const result = await db.deleteFrom('im_tokens').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async getWords(appId) {
      const row = await db.selectFrom('im_sensitive_words').select('words').where('app_id', '=', appId).executeTakeFirst();
      return row ? (JSON.parse(row.words) as string[]) : [];
    },
    async setWords(appId, words, now) {
      await db
        .insertInto('im_sensitive_words')
        .values({ app_id: appId, words: JSON.stringify(words), updated_at: now })
        .onConflict((oc) => oc.column('app_id').doUpdateSet({ words: JSON.stringify(words), updated_at: now }))
        .execute();
    },
  };
}

export function kyselyImUsersRepository(db: Kysely<Database>, engine: Engine): ImUsersRepository {
  return {
    async createUsers(users) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('im_users')
          .values(
            users.map((u) => ({
              app_id: u.appId,
              username: u.username,
              uuid: u.uuid,
              password_hash: u.passwordHash,
              nickname: u.nickname,
              created_at: u.createdAt,
              modified_at: u.modifiedAt,
            })),
          )
          .execute();
      });
    },
    async getUser(appId, username) {
      const row = await db.selectFrom('im_users').selectAll().where('app_id', '=', appId).where('username', '=', username).executeTakeFirst();
      return row && toUser(row);
    },
    async deleteUser(appId, username) {
      return db.transaction().execute(async (trx) => {
        const row = await trx.deleteFrom('im_users').where('app_id', '=', appId).where('username', '=', username).returningAll().executeTakeFirst();
        if (!row) return undefined;
        await trx.deleteFrom('im_tokens').where('app_id', '=', appId).where('username', '=', username).execute();
        await trx.deleteFrom('im_members').where('app_id', '=', appId).where('username', '=', username).execute();
        await trx.deleteFrom('im_offline').where('app_id', '=', appId).where('username', '=', username).execute();
        return toUser(row);
      });
    },
    async existingUsers(appId, usernames) {
      if (usernames.length === 0) return [];
      const rows = await db.selectFrom('im_users').select('username').where('app_id', '=', appId).where('username', 'in', usernames).execute();
      return rows.map((r) => r.username);
    },
    async listUsers(appId, after, limit, search) {
      let query = db.selectFrom('im_users').selectAll().where('app_id', '=', appId);
      if (search !== undefined) query = query.where((eb) => eb.or([containsFolded(engine, 'username', search), containsFolded(engine, 'nickname', search)]));
      if (after) {
        query = query.where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('username', '>', after.id)])]));
      }
      const rows = await query.orderBy('created_at').orderBy('username').limit(limit).execute();
      return rows.map(toUser);
    },
    async setNickname(appId, username, nickname, now) {
      const row = await db
        .updateTable('im_users')
        .set({ nickname, modified_at: now })
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .returningAll()
        .executeTakeFirst();
      return row && toUser(row);
    },
    async setPasswordHash(appId, username, passwordHash, now) {
      const result = await db.updateTable('im_users').set({ password_hash: passwordHash, modified_at: now }).where('app_id', '=', appId).where('username', '=', username).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
