/**
 * The operator commands of src/admin-cli.ts, over the configured storage: a composition root of
 * their own (no HTTP, no workers), which opens the storage, runs one command and closes it.
 */
import type { Config } from '../config/index.js';
import { systemClock } from '../kernel/clock.js';
import { resetPassword, type PasswordReset } from '../modules/accounts/reset-password.js';
import { openStorage } from '../storage/index.js';
import { accountsRepository } from './repositories.js';

/** Sets a console account's password (generated when `password` is undefined) and revokes its tokens. */
export async function resetPasswordCommand(config: Pick<Config, 'databaseUrl' | 'dataDir'>, username: string, password: string | undefined): Promise<PasswordReset> {
  const storage = await openStorage(config, systemClock);
  try {
    return await resetPassword(accountsRepository(storage), username, password);
  } finally {
    await storage.close();
  }
}
