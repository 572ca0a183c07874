import type { Kysely } from 'kysely';
import type { ImOriginsRepository } from '../../modules/im/sdk-ports.js';
import type { Database } from '../schema.js';

/** An app's allowed origins (`im_allowed_origins`, one row per app that set them). */
export function kyselyImOriginsRepository(db: Kysely<Database>): ImOriginsRepository {
  return {
    async getOrigins(appId) {
      const row = await db.selectFrom('im_allowed_origins').select('origins').where('app_id', '=', appId).executeTakeFirst();
      return row ? (JSON.parse(row.origins) as string[]) : null;
    },
    async setOrigins(appId, origins, now) {
      const text = JSON.stringify(origins);
      await db
        .insertInto('im_allowed_origins')
        .values({ app_id: appId, origins: text, updated_at: now })
        .onConflict((oc) => oc.column('app_id').doUpdateSet({ origins: text, updated_at: now }))
        .execute();
    },
  };
}
