/**
 * Operator commands on an existing database, run with the service's own configuration (the same
 * environment as `npm start`):
 *
 *   npm run admin -- reset-password <username>
 *
 * Sets a console account's password and signs out its sessions. The new password is read from
 * stdin when stdin is not a terminal (its first line); otherwise, or when stdin is empty, one is
 * generated and printed once. Exit 0 on success, 1 when refused, 2 on bad usage or configuration.
 */
import { resetPasswordCommand } from './composition/admin.js';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import { PasswordResetError } from './modules/accounts/reset-password.js';

const USAGE = 'usage: npm run admin -- reset-password <username>   (new password on stdin, or none to generate one)';

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

async function main(argv: string[]): Promise<void> {
  const [command, username, ...rest] = argv;
  if (command !== 'reset-password' || !username || rest.length > 0) fail(2, `${command ? `unknown or incomplete command "${argv.join(' ')}"\n` : ''}${USAGE}`);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(2, `invalid configuration: ${error.message}`);
    throw error;
  }
  const password = await passwordFromStdin();
  try {
    const reset = await resetPasswordCommand(config, username, password);
    // The PostgreSQL URL may hold a password: name the engine only.
    const where = config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : config.dataDir;
    const lines = [`Password of "${reset.username}" (${reset.role}) set in ${where}; its console sessions are signed out.`];
    if (reset.generatedPassword) lines.push('', 'The new password, not shown again:', '', `    ${reset.generatedPassword}`, '');
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    if (error instanceof PasswordResetError) fail(1, error.message);
    throw error;
  }
}

main(process.argv.slice(2)).then(
  // Nothing should be left open, but a command must end when its work is done.
  () => process.exit(0),
  (error: unknown) => fail(1, error instanceof Error ? error.message : String(error)),
);
