import type { Kysely } from 'kysely';
import type { ImAttributesRepository } from '../../modules/im/sdk-ports.js';
import type { Database } from '../schema.js';

/** User attributes (`im_user_attributes`), one JSON object a user, written by compare-and-set. */
export function kyselyImAttributesRepository(db: Kysely<Database>): ImAttributesRepository {
  return {
    async get(appId, username) {
      const row = await db.selectFrom('im_user_attributes').select('attributes').where('app_id', '=', appId).where('username', '=', username).executeTakeFirst();
      return row ? { attributes: JSON.parse(row.attributes) as Record<string, string>, text: row.attributes } : null;
    },
    async getMany(appId, usernames) {
      const found = new Map<string, Record<string, string>>();
      if (usernames.length === 0) return found;
      const rows = await db.selectFrom('im_user_attributes').select(['username', 'attributes']).where('app_id', '=', appId).where('username', 'in', [...usernames]).execute();
      for (const row of rows) found.set(row.username, JSON.parse(row.attributes) as Record<string, string>);
      return found;
    },
    async replace(appId, username, expected, next, now) {
      const text = JSON.stringify(next);
      if (expected === null) {
        const inserted = await db
          .insertInto('im_user_attributes')
          .values({ app_id: appId, username, attributes: text, updated_at: now })
          .onConflict((oc) => oc.columns(['app_id', 'username']).doNothing())
          .executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
      }
      const updated = await db
        .updateTable('im_user_attributes')
        .set({ attributes: text, updated_at: now })
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('attributes', '=', expected)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) > 0;
    },
    async remove(appId, username) {
      await db.deleteFrom('im_user_attributes').where('app_id', '=', appId).where('username', '=', username).execute();
    },
  };
}
