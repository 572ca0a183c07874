/** Console sessions of the accounts port: bearer tokens, stored by their hash. */
import type { Kysely } from 'kysely';
import type { AccountsRepository } from '../../modules/accounts/ports.js';
import type { Database } from '../schema.js';

export type TokensRepository = Pick<AccountsRepository, 'saveToken' | 'findToken' | 'deleteToken' | 'deleteExpiredTokens'>;

export function kyselyTokensRepository(db: Kysely<Database>): TokensRepository {
  return {
    async saveToken(tokenHash, userId, expiresAt) {
      await db.insertInto('access_tokens').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt }).execute();
    },
    async findToken(tokenHash) {
      const row = await db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && { userId: row.user_id, expiresAt: row.expires_at };
    },
    async deleteToken(tokenHash) {
      await db.deleteFrom('access_tokens').where('token_hash', '=', tokenHash).execute();
    },
    async deleteExpiredTokens(now) {
      const result = await db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
