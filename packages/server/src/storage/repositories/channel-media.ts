import type { Kysely } from 'kysely';
import type { MediaRepository } from '../../modules/channel/ports.js';
import type { Database } from '../schema.js';

async function usedBytes(db: Kysely<Database>, tenantId: number): Promise<number> {
  const row = await db.selectFrom('channel_media').select((eb) => eb.fn.sum<number | string | bigint>('size').as('used')).where('tenant_id', '=', tenantId).executeTakeFirst();
  return Number(row?.used ?? 0);
}

/**
 * Uploaded media records. `lockTenant`: several processes may write (PostgreSQL), so the quota
 * check locks the tenant's row; on SQLite the one writer's transactions are serial already.
 */
export function kyselyMediaRepository(db: Kysely<Database>, options: { lockTenant: boolean }): MediaRepository {
  return {
    insertWithinQuota(tenantId, file, quotaBytes) {
      return db.transaction().execute(async (trx) => {
        if (options.lockTenant) await trx.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
        if ((await usedBytes(trx, tenantId)) + file.size > quotaBytes) return false;
        await trx
          .insertInto('channel_media')
          .values({ id: file.id, tenant_id: tenantId, filename: file.filename, content_type: file.contentType, size: file.size, created_at: file.createdAt })
          .execute();
        return true;
      });
    },
    async get(id) {
      const row = await db.selectFrom('channel_media').selectAll().where('id', '=', id).executeTakeFirst();
      return row && { id: row.id, tenantId: row.tenant_id, filename: row.filename, contentType: row.content_type, size: row.size, createdAt: row.created_at };
    },
    usedBytes: (tenantId) => usedBytes(db, tenantId),
    async listCreatedBefore(before, limit) {
      const rows = await db.selectFrom('channel_media').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
      return rows.map((r) => r.id);
    },
    async deleteIds(ids) {
      if (ids.length > 0) await db.deleteFrom('channel_media').where('id', 'in', ids).execute();
    },
  };
}
