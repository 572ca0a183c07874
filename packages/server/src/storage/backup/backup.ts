/**
 * `backup <file>`: one file holding a consistent snapshot of the installation, its sealed-secret
 * key and its media files, taken while the service runs or while it is stopped.
 *
 * SQLite: the online backup API (better-sqlite3 `backup()`, all pages in one step so a writer in
 * another process cannot make it start over) into a scratch file beside the output, read into the
 * container. PostgreSQL: every table of the schema, read in primary-key order inside one
 * REPEATABLE READ transaction (one snapshot), as batches of JSON rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectPostgres, postgresBatch, postgresSchemaVersion, postgresTables } from '../postgres/table-io.js';
import { openExistingSqlite, sqliteSchemaVersion } from '../sqlite/table-source.js';
import type { Engine } from '../types.js';
import { BackupWriter, EntryKind } from './container.js';
import { currentKey, DB_FILE, MEDIA_DIR, mediaFiles } from './installation.js';
import { Refused } from './refusal.js';
import { BOOKKEEPING_TABLES, keyOf, rowsJson } from './tables.js';

export interface BackupSource {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly secretKey: Buffer | undefined;
}

export interface BackupResult {
  readonly engine: Engine;
  readonly schemaVersion: number;
  /** Rows per table (PostgreSQL), or the database file's bytes (SQLite, as `parley.db`). */
  readonly counts: ReadonlyArray<readonly [string, number]>;
  readonly mediaFiles: number;
  /** The sealed-secret key is in the file. */
  readonly key: boolean;
  readonly bytes: number;
}

const BATCH_ROWS = 5000;

export async function backup(source: BackupSource, file: string, progress: (line: string) => void = () => undefined): Promise<BackupResult> {
  const out = path.resolve(file);
  if (!fs.existsSync(path.dirname(out))) throw new Refused(`the folder of ${out} does not exist`, 2);
  if (fs.existsSync(out)) throw new Refused(`${out} exists already; choose a new file`);
  const key = currentKey(source.secretKey, source.dataDir);
  const writer = new BackupWriter(out);
  try {
    const taken = source.databaseUrl ? await postgresSnapshot(source.databaseUrl, writer, progress) : await sqliteSnapshot(source.dataDir, out, writer, progress);
    if (key) writer.entry(EntryKind.SecretKey, 'secret.key', key);
    const media = mediaFiles(source.dataDir);
    for (const name of media) writer.fileEntry(EntryKind.Media, name, path.join(source.dataDir, MEDIA_DIR, name));
    if (media.length > 0) progress(`backup: ${media.length} media files`);
    writer.finish();
    return { ...taken, mediaFiles: media.length, key: key !== undefined, bytes: fs.statSync(out).size };
  } catch (error) {
    writer.abandon();
    throw error;
  }
}

async function sqliteSnapshot(dataDir: string, out: string, writer: BackupWriter, progress: (line: string) => void) {
  const dbFile = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(dbFile)) throw new Refused(`no Parley database in ${dataDir} (no ${DB_FILE})`, 2);
  const scratch = `${out}.snapshot`;
  fs.rmSync(scratch, { force: true });
  try {
    const raw = openExistingSqlite(dbFile);
    try {
      progress('backup: SQLite online backup');
      // The first step copies nothing; then every remaining page in one step, inside one read
      // transaction: a consistent snapshot that the service's writes do not restart.
      await raw.backup(scratch, { progress: () => 0x7fffffff });
    } finally {
      raw.close();
    }
    const copy = openExistingSqlite(scratch);
    let schemaVersion: number;
    try {
      schemaVersion = sqliteSchemaVersion(copy);
      // The copy is a plain database file: no WAL beside it to carry.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    writer.header({ engine: 'sqlite', schemaVersion, createdAt: new Date().toISOString() });
    writer.fileEntry(EntryKind.SqliteFile, DB_FILE, scratch);
    return { engine: 'sqlite' as const, schemaVersion, counts: [[DB_FILE, fs.statSync(scratch).size] as const] };
  } finally {
    fs.rmSync(scratch, { force: true });
    fs.rmSync(`${scratch}-wal`, { force: true });
    fs.rmSync(`${scratch}-shm`, { force: true });
  }
}

async function postgresSnapshot(url: string, writer: BackupWriter, progress: (line: string) => void) {
  const client = await connectPostgresOrRefuse(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const schemaVersion = await postgresSchemaVersion(client);
    writer.header({ engine: 'postgres', schemaVersion, createdAt: new Date().toISOString() });
    const counts: Array<readonly [string, number]> = [];
    for (const table of await postgresTables(client)) {
      if (BOOKKEEPING_TABLES.has(table.name)) continue;
      let after: unknown[] | undefined;
      let count = 0;
      for (;;) {
        const rows = await postgresBatch(client, table, after, BATCH_ROWS);
        if (rows.length === 0) break;
        writer.entry(EntryKind.Rows, table.name, Buffer.from(rowsJson(rows)));
        count += rows.length;
        after = keyOf(table, rows[rows.length - 1] as Record<string, unknown>);
        if (rows.length < BATCH_ROWS) break;
      }
      progress(`backup: ${table.name} ${count}`);
      counts.push([table.name, count]);
    }
    await client.query('COMMIT');
    return { engine: 'postgres' as const, schemaVersion, counts };
  } finally {
    await client.end();
  }
}

export async function connectPostgresOrRefuse(url: string) {
  try {
    return await connectPostgres(url);
  } catch (error) {
    // The URL may hold a password: never print it.
    throw new Refused(`cannot connect to the PostgreSQL database: ${(error as Error).message}`, 2);
  }
}
