/**
 * `npm run admin -- copy-to <postgres-url>`: a stopped SQLite installation, built by a real
 * service process, copied into an empty PostgreSQL database; the copy is killed midway and run
 * again to finish; then the service started on PostgreSQL (same DATA_DIR: key and media) is the
 * same installation and takes new traffic at once.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { admin, appToken, envOf, expectSameInstallation, json, populate, rootToken, sendCustomer, sendIm, tableCounts, type Fixture } from '../helpers/installation.js';
import { runParley, startParley } from '../helpers/process.js';

const ADMIN_JS = fileURLToPath(new URL('../../dist/admin-cli.js', import.meta.url));
const BOOKKEEPING = new Set(['parley_migrations', 'parley_copy_state']);
/** PostgreSQL's own tables of the conversation search's index (migration 126): SQLite has none, the copy leaves them empty and the indexer fills them. */
const POSTGRES_ONLY = new Set(['channel_message_text', 'channel_message_text_state']);

/** Runs copy-to and kills it (SIGKILL) once it has written some batches of a table but not all. */
function copyKilledMidway(env: Record<string, string>, url: string): Promise<string> {
  const proc = spawn(process.execPath, [ADMIN_JS, 'copy-to', url], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    const partial = [...stderr.matchAll(/copy-to: \w+ (\d+)\/(\d+)/g)].some((m) => Number(m[1]) > 0 && Number(m[1]) < Number(m[2]));
    if (partial) proc.kill('SIGKILL');
  });
  return new Promise((resolve) => proc.on('close', () => resolve(stderr)));
}

describe.skipIf(!ENGINES.includes('postgres'))('copy-to PostgreSQL', () => {
  const dbs: TestDatabase[] = [];
  let source: TestDatabase;
  let target: TestDatabase;
  let receiver: CallbackReceiver;
  let fixture: Fixture;
  const fresh = async (engine: 'sqlite' | 'postgres') => {
    const db = await createTestDatabase(engine);
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    source = await fresh('sqlite');
    target = await fresh('postgres');
    const running = await startParley(envOf(source), 60_000);
    try {
      fixture = await populate(running.url, receiver.url);
      const token = await appToken(running.url, fixture.im);
      // Enough rows for several batches of 100, stored offline messages for bob among them.
      for (let i = 0; i < 30; i++) {
        const sent = await Promise.all(Array.from({ length: 10 }, (_, j) => sendIm(running.url, fixture.im, token, `m${i}-${j}`)));
        expect(sent.every((s) => s === 200)).toBe(true);
      }
      for (let i = 0; i < 20; i++) expect(await sendCustomer(running.url, fixture.association, `customer-${i}`, `hello ${i}`)).toBe(200);
    } finally {
      await running.stop();
    }
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    for (const db of dbs) await db.destroy();
  });

  it('refuses a URL that does not connect and a PostgreSQL configuration as bad configuration', async () => {
    const unreachable = await admin(envOf(source), ['copy-to', 'postgres://parley@127.0.0.1:1/none']);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/^parley admin: cannot connect to the PostgreSQL database/);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect((await admin(envOf(source), ['copy-to', 'mysql://x'])).code).toBe(2);
    expect((await admin(envOf(target), ['copy-to', target.config.databaseUrl as string])).code).toBe(2);
  });

  it('refuses to copy an installation the service is running on, and writes nothing', async () => {
    const running = await startParley(envOf(source), 60_000);
    try {
      const refused = await admin(envOf(source), ['copy-to', target.config.databaseUrl as string]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/Parley is running on this installation/);
      expect(await tableCounts(target.config)).toEqual({});
    } finally {
      await running.stop();
    }
  }, 60_000);

  it('is killed midway, refuses another source meanwhile, and a second run finishes the copy', async () => {
    const url = target.config.databaseUrl as string;
    const env = envOf(source, { PARLEY_COPY_BATCH_ROWS: '100' });
    const { DATABASE_URL: _unused, ...sqliteEnv } = env;
    const progress = await copyKilledMidway(sqliteEnv, url);
    expect(progress).toMatch(/copy-to: schema created/);

    // The service does not start on a half-copied database.
    const early = runParley({ ...envOf(source), DATABASE_URL: url });
    const exited = await early.exited;
    expect(exited.code).not.toBe(0);
    expect(exited.output).toMatch(/unfinished copy \(npm run admin -- copy-to\)/);

    const other = await fresh('sqlite');
    const otherRunning = await startParley(envOf(other), 60_000);
    await otherRunning.stop();
    const foreign = await admin(envOf(other), ['copy-to', url]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/an interrupted copy of another installation/);

    const resumed = await admin(sqliteEnv, ['copy-to', url]);
    expect(resumed.stderr).not.toContain('parley admin:');
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/resuming an interrupted copy/);
    expect(resumed.stderr).toMatch(/conversation_changes skipped \(SQLite only\)/);
    expect(resumed.stderr).toMatch(/channel_message_text left empty \(PostgreSQL only\)/);
    const lines = resumed.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^Copied .* \(schema \d+, resumed\) into the PostgreSQL database: \d+ rows in [\d.]+ s\./);

    // Every table of the PostgreSQL schema was copied, row for row, and named in the counts.
    const from = await tableCounts(source.config);
    const to = await tableCounts(target.config);
    const printed = Object.fromEntries(lines.slice(0, -1).map((line) => line.split('\t') as [string, string]));
    expect(to).not.toHaveProperty('parley_copy_state');
    for (const [table, n] of Object.entries(to)) {
      if (BOOKKEEPING.has(table)) continue;
      expect(n, table).toBe(POSTGRES_ONLY.has(table) ? 0 : from[table]);
      expect(printed[table], table).toBe(String(n));
    }
    for (const table of ['tenants', 'users', 'rest_channels', 'conversations', 'channel_messages', 'channel_media', 'im_apps', 'im_users', 'im_messages', 'im_offline', 'callback_rules']) {
      expect(to[table], table).toBeGreaterThan(0);
    }
    expect(to.im_messages).toBeGreaterThan(300);

    const again = await admin(sqliteEnv, ['copy-to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty .*a Parley installation or a finished copy/);
  }, 120_000);

  it('serves the same installation on PostgreSQL, and new rows get new ids', async () => {
    const onPostgres = await startParley({ ...envOf(source), DATABASE_URL: target.config.databaseUrl as string }, 60_000);
    try {
      await expectSameInstallation(onPostgres.url, fixture, receiver);
      const root = await rootToken(onPostgres.url);
      const tenant = await json(`${onPostgres.url}/api/tenants`, 'POST', { name: 'After', edition: 'standard', admin: { username: 'after-admin@example.com', password: 'tenant-admin-pw', nickname: 'After' } }, root);
      expect(tenant.status).toBe(200);
      expect(tenant.body.entity.tenantId).toBeGreaterThan(fixture.association.tenantId);
      expect(await sendCustomer(onPostgres.url, fixture.association, 'a-new-customer', 'first words')).toBe(200);
    } finally {
      await onPostgres.stop();
    }
  }, 120_000);
});
