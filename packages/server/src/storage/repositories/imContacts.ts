import type { Kysely } from 'kysely';
import type { ImContactsRepository, ImContactWrites } from '../../modules/im/sdk-ports.js';
import type { Database } from '../schema.js';

/** Contact and block-list writes of one transaction (`im_contacts`, `im_contact_requests`, `im_blocks`). */
export function kyselyImContactWrites(trx: Kysely<Database>): ImContactWrites {
  return {
    async request(appId, requester, target, reason, now) {
      await trx
        .insertInto('im_contact_requests')
        .values({ app_id: appId, requester, target, reason, created_at: now })
        .onConflict((oc) => oc.columns(['app_id', 'requester', 'target']).doUpdateSet({ reason, created_at: now }))
        .execute();
    },
    async accept(appId, target, requester, now) {
      const dropped = await trx
        .deleteFrom('im_contact_requests')
        .where('app_id', '=', appId)
        .where((eb) => eb.or([eb.and([eb('requester', '=', requester), eb('target', '=', target)]), eb.and([eb('requester', '=', target), eb('target', '=', requester)])]))
        .returning('requester')
        .execute();
      if (!dropped.some((row) => row.requester === requester)) return false;
      await trx
        .insertInto('im_contacts')
        .values([
          { app_id: appId, username: target, contact: requester, created_at: now },
          { app_id: appId, username: requester, contact: target, created_at: now },
        ])
        .onConflict((oc) => oc.columns(['app_id', 'username', 'contact']).doNothing())
        .execute();
      return true;
    },
    async decline(appId, target, requester) {
      const result = await trx.deleteFrom('im_contact_requests').where('app_id', '=', appId).where('requester', '=', requester).where('target', '=', target).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async remove(appId, username, contact) {
      const result = await trx
        .deleteFrom('im_contacts')
        .where('app_id', '=', appId)
        .where((eb) => eb.or([eb.and([eb('username', '=', username), eb('contact', '=', contact)]), eb.and([eb('username', '=', contact), eb('contact', '=', username)])]))
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async block(appId, username, blocked, now) {
      if (blocked.length === 0) return;
      await trx
        .insertInto('im_blocks')
        .values(blocked.map((b) => ({ app_id: appId, username, blocked: b, created_at: now })))
        .onConflict((oc) => oc.columns(['app_id', 'username', 'blocked']).doNothing())
        .execute();
    },
    async unblock(appId, username, blocked) {
      if (blocked.length === 0) return;
      await trx.deleteFrom('im_blocks').where('app_id', '=', appId).where('username', '=', username).where('blocked', 'in', [...blocked]).execute();
    },
  };
}

/** Contacts and block lists read (`im_contacts`, `im_blocks`); they change through `kyselyImContactWrites`. */
export function kyselyImContactsRepository(db: Kysely<Database>): ImContactsRepository {
  return {
    async areContacts(appId, username, contact) {
      const row = await db.selectFrom('im_contacts').select('contact').where('app_id', '=', appId).where('username', '=', username).where('contact', '=', contact).executeTakeFirst();
      return row !== undefined;
    },
    async contacts(appId, username, limit) {
      const rows = await db.selectFrom('im_contacts').select('contact').where('app_id', '=', appId).where('username', '=', username).orderBy('contact').limit(limit).execute();
      return rows.map((r) => r.contact);
    },
    async contactsWithRemarks(appId, username, after, limit) {
      let query = db.selectFrom('im_contacts').select(['contact', 'remark']).where('app_id', '=', appId).where('username', '=', username);
      if (after !== undefined) query = query.where('contact', '>', after);
      const rows = await query.orderBy('contact').limit(limit).execute();
      return rows.map((r) => ({ username: r.contact, remark: r.remark }));
    },
    async setRemark(appId, username, contact, remark) {
      const result = await db.updateTable('im_contacts').set({ remark }).where('app_id', '=', appId).where('username', '=', username).where('contact', '=', contact).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async blocks(appId, username, limit) {
      const rows = await db.selectFrom('im_blocks').select('blocked').where('app_id', '=', appId).where('username', '=', username).orderBy('blocked').limit(limit).execute();
      return rows.map((r) => r.blocked);
    },
    async blockersOf(appId, sender, usernames) {
      if (usernames.length === 0) return [];
      const rows = await db.selectFrom('im_blocks').select('username').where('app_id', '=', appId).where('blocked', '=', sender).where('username', 'in', [...usernames]).execute();
      return rows.map((r) => r.username);
    },
  };
}
