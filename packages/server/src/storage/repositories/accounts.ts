/** The accounts port on Kysely: tenants and skill groups, users, console sessions, editing and deleting, each in a file of its own. */
import type { Kysely } from 'kysely';
import type { AccountsRepository } from '../../modules/accounts/ports.js';
import type { Database } from '../schema.js';
import { kyselyAccountsAdminRepository } from './accounts-admin.js';
import { kyselyTenantsRepository } from './accounts-tenants.js';
import { kyselyTokensRepository } from './accounts-tokens.js';
import { kyselyUsersRepository } from './accounts-users.js';

export { toTenant } from './accounts-tenants.js';

export function kyselyAccountsRepository(db: Kysely<Database>): AccountsRepository {
  return { ...kyselyTenantsRepository(db), ...kyselyUsersRepository(db), ...kyselyTokensRepository(db), ...kyselyAccountsAdminRepository(db) };
}
