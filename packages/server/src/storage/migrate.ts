import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Migration } from './types.js';

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/**
 * Applies pending migrations in order, each in its own transaction, and refuses a database whose
 * schema is newer than the newest migration this build knows.
 */
export async function migrate(
  db: Kysely<Database>,
  migrations: readonly Migration[],
  options: { now: () => number; lock?: (trx: Kysely<Database>) => Promise<void> },
): Promise<number> {
  // `npm run admin -- copy-to` keeps its bookkeeping in this table until the copy has finished: a
  // service started on a half-copied database would serve (and write into) part of an installation.
  const tables = await db.introspection.getTables();
  if (tables.some((table) => table.name === 'parley_copy_state')) {
    throw new Error('this database holds an unfinished copy (npm run admin -- copy-to); run the same copy-to again to finish it, then start');
  }
  // Under the migration lock: two instances booting on an empty PostgreSQL database would
  // otherwise race on CREATE TABLE IF NOT EXISTS (a unique violation in pg_type).
  await db.transaction().execute(async (trx) => {
    await options.lock?.(trx);
    await sql`CREATE TABLE IF NOT EXISTS parley_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`.execute(trx);
  });
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = await currentVersion(db);
  if (current > known) {
    throw new SchemaTooNewError(
      `database schema version ${current} is newer than this Parley build supports (${known}); upgrade Parley or use another database`,
    );
  }
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    await db.transaction().execute(async (trx) => {
      await options.lock?.(trx);
      // Re-read inside the transaction: another instance may have applied it meanwhile.
      const applied = await trx
        .selectFrom('parley_migrations')
        .select('version')
        .where('version', '=', migration.version)
        .executeTakeFirst();
      if (applied) return;
      for (const statement of migration.statements) await sql.raw(statement).execute(trx);
      await trx
        .insertInto('parley_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: options.now() })
        .execute();
    });
  }
  return currentVersion(db);
}

export async function currentVersion(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('parley_migrations')
    .select((eb) => eb.fn.max('version').as('v'))
    .executeTakeFirst();
  return Number(row?.v ?? 0);
}
