/** Tenants of the accounts port, with their skill groups (a new tenant gets a default one and its first admin). */
import type { Kysely, Selectable } from 'kysely';
import type { AccountsRepository, SkillGroup, Tenant } from '../../modules/accounts/ports.js';
import type { TenantsTable } from '../tables/accounts.js';
import type { Database } from '../schema.js';
import { insertUser } from './accounts-users.js';

export type TenantsRepository = Pick<
  AccountsRepository,
  'createTenant' | 'getTenant' | 'listTenants' | 'setVipTags' | 'countTenants' | 'createSkillGroup' | 'listSkillGroups' | 'existingSkillGroupIds'
>;

/** A tenant's row as the accounts port sees it (the channel's group commit reads it too). */
export const toTenant = (row: Selectable<TenantsTable>): Tenant => ({
  id: row.id,
  name: row.name,
  edition: row.edition,
  defaultQueueId: row.default_queue_id ?? 0,
  vipTags: JSON.parse(row.vip_tags) as string[],
  createdAt: row.created_at,
});

export function kyselyTenantsRepository(db: Kysely<Database>): TenantsRepository {
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
  };
}
