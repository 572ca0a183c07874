import type { Kysely } from 'kysely';
import type { ImFilesRepository } from '../../modules/im/files.js';
import type { Database } from '../schema.js';

async function usedBytes(db: Kysely<Database>, appId: string): Promise<number> {
  const row = await db.selectFrom('im_files').select((eb) => eb.fn.sum<number | string | bigint>('size').as('used')).where('app_id', '=', appId).executeTakeFirst();
  return Number(row?.used ?? 0);
}

/**
 * IM chat files' rows. `lockApp`: several processes may write (PostgreSQL), so the quota check
 * locks the app's row; on SQLite the one writer's transactions are serial already.
 */
export function kyselyImFilesRepository(db: Kysely<Database>, options: { lockApp: boolean }): ImFilesRepository {
  return {
    insertWithinQuota(owner, file, quotaBytes) {
      return db.transaction().execute(async (trx) => {
        if (options.lockApp) await trx.selectFrom('im_apps').select('id').where('id', '=', owner.appId).forUpdate().execute();
        if ((await usedBytes(trx, owner.appId)) + file.size > quotaBytes) return false;
        await trx
          .insertInto('im_files')
          .values({
            id: file.id,
            app_id: owner.appId,
            secret_hash: owner.secretHash,
            filename: file.filename,
            content_type: file.contentType,
            size: file.size,
            created_at: file.createdAt,
          })
          .execute();
        return true;
      });
    },
    async get(appId, id) {
      const row = await db.selectFrom('im_files').selectAll().where('id', '=', id).where('app_id', '=', appId).executeTakeFirst();
      return (
        row && {
          id: row.id,
          appId: row.app_id,
          secretHash: row.secret_hash,
          filename: row.filename,
          contentType: row.content_type,
          size: Number(row.size),
          createdAt: Number(row.created_at),
        }
      );
    },
    usedBytes: (owner) => usedBytes(db, owner.appId),
    async listCreatedBefore(before, limit) {
      const rows = await db.selectFrom('im_files').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
      return rows.map((r) => r.id);
    },
    async deleteIds(ids) {
      if (ids.length > 0) await db.deleteFrom('im_files').where('id', 'in', ids).execute();
    },
  };
}
