import type { Kysely } from 'kysely';
import type { ImFileOwner, ImFileRecord, ImFilesRepository, ImFileWrites } from '../../modules/im/files.js';
import type { StoredFile } from '../../modules/media/ports.js';
import type { Database } from '../schema.js';
import type { ImFilesTable } from '../tables/im.js';

async function usedBytes(db: Kysely<Database>, appId: string): Promise<number> {
  const row = await db.selectFrom('im_files').select((eb) => eb.fn.sum<number | string | bigint>('size').as('used')).where('app_id', '=', appId).executeTakeFirst();
  return Number(row?.used ?? 0);
}

function recordOf(row: ImFilesTable): ImFileRecord {
  return {
    id: row.id,
    appId: row.app_id,
    secretHash: row.secret_hash,
    filename: row.filename,
    contentType: row.content_type,
    size: Number(row.size),
    createdAt: Number(row.created_at),
    ...(row.group_id === null ? {} : { shared: { groupId: row.group_id, owner: row.owner } }),
  };
}

/**
 * The quota check and the insert, in the caller's transaction `trx`. `lockApp`: several processes
 * may write (PostgreSQL), so the check locks the app's row; on SQLite the one writer's
 * transactions are serial already.
 */
async function insertWithinQuota(trx: Kysely<Database>, lockApp: boolean, owner: ImFileOwner, file: StoredFile, quotaBytes: number): Promise<boolean> {
  if (lockApp) await trx.selectFrom('im_apps').select('id').where('id', '=', owner.appId).forUpdate().execute();
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
      group_id: owner.shared?.groupId ?? null,
      owner: owner.shared?.owner ?? null,
    })
    .execute();
  return true;
}

/** The chat-file writes of a transaction of the unit of work (a shared file's row with its group operation). */
export function kyselyImFileWrites(trx: Kysely<Database>, options: { lockApp: boolean }): ImFileWrites {
  return {
    insertWithinQuota: (owner, file, quotaBytes) => insertWithinQuota(trx, options.lockApp, owner, file, quotaBytes),
    async deleteShared(groupId, id) {
      const result = await trx.deleteFrom('im_files').where('id', '=', id).where('group_id', '=', groupId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** IM chat files' rows (and groups' shared files, the same rows with their group). */
export function kyselyImFilesRepository(db: Kysely<Database>, options: { lockApp: boolean }): ImFilesRepository {
  return {
    insertWithinQuota(owner, file, quotaBytes) {
      return db.transaction().execute((trx) => insertWithinQuota(trx, options.lockApp, owner, file, quotaBytes));
    },
    async get(appId, id) {
      const row = await db.selectFrom('im_files').selectAll().where('id', '=', id).where('app_id', '=', appId).executeTakeFirst();
      return row && recordOf(row);
    },
    async listShared(groupId, limit, offset) {
      const rows = await db
        .selectFrom('im_files')
        .selectAll()
        .where('group_id', '=', groupId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(recordOf);
    },
    async listOrphaned(limit) {
      const rows = await db
        .selectFrom('im_files as f')
        .select('f.id')
        .where('f.group_id', 'is not', null)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('im_groups as g').select('g.id').whereRef('g.id', '=', 'f.group_id'))))
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
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
