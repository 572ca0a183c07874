/**
 * Builds a target's schema at a given version (a restore or a copy brings data of that version;
 * the service migrates further when it starts), inside the caller's transaction.
 */
import type pg from 'pg';
import type { Migration } from '../types.js';

export async function applyMigrationsUpTo(client: pg.ClientBase, migrations: readonly Migration[], version: number, now = Date.now()): Promise<void> {
  await client.query('CREATE TABLE IF NOT EXISTS parley_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
  const applied = new Set((await client.query<{ version: number }>('SELECT version FROM parley_migrations')).rows.map((r) => r.version));
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version > version || applied.has(migration.version)) continue;
    for (const statement of migration.statements) await client.query(statement);
    await client.query('INSERT INTO parley_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, now]);
  }
}
