/**
 * An operator's way back in: a console account's password set from the command line
 * (`npm run admin -- reset-password <username>`, src/admin-cli.ts), for a lost system admin
 * password on an existing database. The same scrypt hash as every account, and every console
 * token of the user revoked with it, so sessions opened with the old password end at once.
 */
import { generatePassword } from './bootstrap.js';
import { hashPassword } from './password.js';
import type { AccountsRepository } from './ports.js';
import { normaliseUsername } from './service.js';

/** The bounds of a console password (the API's `password` fields). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/** A reset that was refused; its message is for the operator. */
export class PasswordResetError extends Error {}

export interface PasswordReset {
  username: string;
  role: string;
  /** Set when no password was given: shown once, never stored in clear. */
  generatedPassword?: string;
}

export async function resetPassword(
  repo: Pick<AccountsRepository, 'findUserByUsername' | 'resetPassword'>,
  username: string,
  given: string | undefined,
): Promise<PasswordReset> {
  if (given !== undefined && (given.length < PASSWORD_MIN || given.length > PASSWORD_MAX)) {
    throw new PasswordResetError(`the password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (got ${given.length})`);
  }
  const user = await repo.findUserByUsername(normaliseUsername(username));
  if (!user) throw new PasswordResetError(`no console account is named "${normaliseUsername(username)}"`);
  const password = given ?? generatePassword();
  await repo.resetPassword(user.id, await hashPassword(password));
  return { username: user.username, role: user.role, ...(given === undefined ? { generatedPassword: password } : {}) };
}
