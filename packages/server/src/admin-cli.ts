/**
 * Operator commands on an installation, run with the service's own configuration (the same
 * environment as `npm start`):
 *
 *   npm run admin -- reset-password <username>
 *   npm run admin -- backup <file>
 *   npm run admin -- restore <file>
 *   npm run admin -- copy-to <postgres-url>
 *
 * reset-password sets a console account's password and signs out its sessions; the new password
 * is read from stdin when stdin is not a terminal (its first line); otherwise, or when stdin is
 * empty, one is generated and printed once. backup, restore and copy-to: docs/deploy.md. Exit 0 on
 * success, 1 when refused, 2 on bad usage or configuration; progress on stderr, results on stdout.
 */
import { backupCommand, copyToCommand, restoreCommand } from './composition/admin-backup.js';
import { resetPasswordCommand } from './composition/admin.js';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import { PasswordResetError } from './modules/accounts/reset-password.js';
import { Refused } from './storage/backup/refusal.js';

const USAGE = [
  'usage: npm run admin -- reset-password <username>   (new password on stdin, or none to generate one)',
  '       npm run admin -- backup <file>',
  '       npm run admin -- restore <file>',
  '       npm run admin -- copy-to <postgres-url>',
].join('\n');

function fail(code: number, message: string): never {
  process.stderr.write(`parley admin: ${message}\n`);
  process.exit(code);
}

/** The first line of stdin when it is piped or redirected; undefined from a terminal or when empty. */
async function passwordFromStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
  return line === '' ? undefined : line;
}

async function resetPassword(config: Config, username: string): Promise<string[]> {
  const password = await passwordFromStdin();
  const reset = await resetPasswordCommand(config, username, password);
  // The PostgreSQL URL may hold a password: name the engine only.
  const where = config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : config.dataDir;
  const lines = [`Password of "${reset.username}" (${reset.role}) set in ${where}; its console sessions are signed out.`];
  if (reset.generatedPassword) lines.push('', 'The new password, not shown again:', '', `    ${reset.generatedPassword}`, '');
  return lines;
}

/** Rows per batch of copy-to (PARLEY_COPY_BATCH_ROWS, 100 to 100000; default 5000). */
function copyBatchRows(): number | undefined {
  const value = process.env.PARLEY_COPY_BATCH_ROWS?.trim();
  if (!value) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100 || n > 100_000) fail(2, 'invalid configuration: PARLEY_COPY_BATCH_ROWS must be an integer from 100 to 100000');
  return n;
}

const COMMANDS: Record<string, (config: Config, argument: string) => Promise<string[]>> = {
  'reset-password': resetPassword,
  backup: backupCommand,
  restore: restoreCommand,
  'copy-to': async (config, url) => {
    if (!/^postgres(ql)?:\/\//.test(url)) fail(2, `copy-to needs a postgres:// URL\n${USAGE}`);
    if (config.databaseUrl) fail(2, 'copy-to copies an SQLite installation: unset DATABASE_URL and set DATA_DIR to the installation');
    return copyToCommand(config, url, { batchRows: copyBatchRows() });
  },
};

async function main(argv: string[]): Promise<void> {
  const [command, argument, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run || !argument || rest.length > 0) fail(2, `${command ? `unknown or incomplete command "${argv.join(' ')}"\n` : ''}${USAGE}`);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(2, `invalid configuration: ${error.message}`);
    throw error;
  }
  try {
    const lines = await run(config, argument);
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    if (error instanceof PasswordResetError) fail(1, error.message);
    if (error instanceof Refused) fail(error.exitCode, error.message);
    throw error;
  }
}

main(process.argv.slice(2)).then(
  // Nothing should be left open, but a command must end when its work is done.
  () => process.exit(0),
  (error: unknown) => fail(1, error instanceof Error ? error.message : String(error)),
);
