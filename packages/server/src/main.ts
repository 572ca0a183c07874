/**
 * Entry point: read config, build the app, listen, say where to go (one "Parley ready" line), and
 * shut down cleanly on SIGTERM/SIGINT.
 */
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import { DEMO_ADMIN_USERNAME, DEMO_AGENT_USERNAME } from './modules/accounts/bootstrap.js';
import { missingNodeFlags } from './node-flags.js';
import { readyLine } from './ready-line.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`parley: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const app = await buildApp(config);
  const { bootstrap } = app.parley;
  if (bootstrap.generatedPassword || bootstrap.demoPasswords) {
    // Printed once, on the first boot of an empty database; only the hashes are stored.
    const lines: string[] = [''];
    if (bootstrap.generatedPassword) {
      lines.push(`Parley created the system admin "${config.adminUsername}" with the generated password:`, '', `    ${bootstrap.generatedPassword}`, '');
    }
    if (bootstrap.demoPasswords) {
      lines.push(
        `The demo tenant ${bootstrap.demoTenantId} has these accounts, each with a generated password of its own:`,
        '',
        `    ${DEMO_ADMIN_USERNAME} (admin)   ${bootstrap.demoPasswords.admin}`,
        `    ${DEMO_AGENT_USERNAME} (agent)   ${bootstrap.demoPasswords.agent}`,
        '',
      );
    }
    lines.push(
      `${bootstrap.generatedPassword ? 'They are' : 'The demo passwords are'} not shown again.` +
        (bootstrap.generatedPassword ? ' Set PARLEY_ADMIN_PASSWORD to choose the admin password yourself.' : ''),
      '',
      '',
    );
    process.stdout.write(lines.join('\n'));
  }

  if (app.parley.imDemoApp) {
    // Printed once, on the boot that created the demo IM app; only the secret's hash is stored.
    const demo = app.parley.imDemoApp;
    process.stdout.write(
      `Parley created the demo IM app ${demo.appkey} (POST /demo/demo/token with grant_type client_credentials):\n\n` +
        `    client_id:     ${demo.client_id}\n    client_secret: ${demo.client_secret}\n\nThey are not shown again.\n\n`,
    );
  }

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const missing = missingNodeFlags();
  if (missing.length > 0) {
    app.log.info({ missing }, 'started without the V8 flags Parley is tuned for (npm start passes them); the send-message API serves about a tenth fewer requests');
  }
  process.stdout.write(`${readyLine(app.server.address())}\n`);
  // The first callback or reply push should not wait for the outbound worker to load.
  if (config.workers) void app.parley.outbound.warmUp?.();
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`parley: failed to start: ${message}\n`);
  process.exit(1);
});
