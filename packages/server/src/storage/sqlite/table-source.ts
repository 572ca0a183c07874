/**
 * Reading an SQLite installation table by table (backups and `copy-to`): the tables and their
 * columns from the file itself, rows in primary-key order, one batch at a time.
 */
import BetterSqlite3 from 'better-sqlite3';
import { keysetQuery, type TableShape } from '../backup/tables.js';

export type RawSqlite = BetterSqlite3.Database;

/** Opens an existing installation's file without running migrations (it must exist). */
export function openExistingSqlite(file: string): RawSqlite {
  const raw = new BetterSqlite3(file, { fileMustExist: true });
  raw.pragma('busy_timeout = 5000');
  return raw;
}

export function sqliteSchemaVersion(raw: RawSqlite): number {
  const exists = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'parley_migrations'`).get();
  if (!exists) return 0;
  const row = raw.prepare('SELECT MAX(version) AS v FROM parley_migrations').get() as { v: number | null };
  return Number(row.v ?? 0);
}

export function sqliteTables(raw: RawSqlite): TableShape[] {
  const names = raw
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .all() as Array<{ name: string }>;
  return names.map(({ name }) => {
    const info = raw.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as Array<{ name: string; pk: number }>;
    return {
      name,
      columns: info.map((c) => c.name),
      primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
    };
  });
}

export function sqliteCount(raw: RawSqlite, table: string): number {
  const row = raw.prepare(`SELECT COUNT(*) AS n FROM "${table.replaceAll('"', '""')}"`).get() as { n: number };
  return Number(row.n);
}

/** The next `limit` rows after `after` (a key; undefined for the first batch), integers exact. */
export function sqliteBatch(raw: RawSqlite, table: TableShape, after: readonly unknown[] | undefined, limit: number): Array<Record<string, unknown>> {
  const statement = raw.prepare(keysetQuery(table, after !== undefined, () => '?')).safeIntegers(true);
  return statement.all(...(after ?? []), limit) as Array<Record<string, unknown>>;
}
