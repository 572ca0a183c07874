/**
 * The callbacks port on Kysely: an app's settings here; rules and their ban state in
 * callbacks-rules.ts; the exception store in callbacks-store.ts.
 */
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../kernel/secret-box.js';
import type { CallbacksRepository, CallbackSettings } from '../../modules/callbacks/ports.js';
import type { Database } from '../schema.js';
import { kyselyRulesRepository } from './callbacks-rules.js';
import { kyselyRecordStoreRepository } from './callbacks-store.js';

type SettingsRepository = Pick<CallbacksRepository, 'getSettings' | 'putSettings'>;

function kyselySettingsRepository(db: Kysely<Database>): SettingsRepository {
  async function getSettings(appId: string, conn: Kysely<Database> = db): Promise<CallbackSettings> {
    const row = await conn.selectFrom('callback_settings').selectAll().where('app_id', '=', appId).executeTakeFirst();
    return { appId, enabled: row?.enabled === 1, storeFailed: row?.store_failed === 1 };
  }
  return {
    getSettings,
    async putSettings(appId, patch, now) {
      return db.transaction().execute(async (trx) => {
        const current = await getSettings(appId, trx);
        const next = { enabled: patch.enabled ?? current.enabled, storeFailed: patch.storeFailed ?? current.storeFailed };
        const values = { enabled: next.enabled ? 1 : 0, store_failed: next.storeFailed ? 1 : 0, updated_at: now };
        await trx
          .insertInto('callback_settings')
          .values({ app_id: appId, ...values })
          .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
          .execute();
        return { appId, ...next };
      });
    },
  };
}

export function kyselyCallbacksRepository(db: Kysely<Database>, secrets: SecretBox): CallbacksRepository {
  return { ...kyselySettingsRepository(db), ...kyselyRulesRepository(db, secrets), ...kyselyRecordStoreRepository(db) };
}
