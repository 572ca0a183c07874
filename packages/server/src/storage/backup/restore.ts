/**
 * `restore <file>`: a verified backup into an empty target of the engine it was taken from.
 * Everything is checked before anything is written (the file's checksum, its engine and schema,
 * the key, the target's emptiness); files are put together in a scratch folder inside DATA_DIR
 * and moved into place at the end, and PostgreSQL's rows go in with one transaction, so a failure
 * leaves the target as it was.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { advanceIdentities, insertRows, postgresTableNames, postgresTables } from '../postgres/table-io.js';
import { openExistingSqlite, sqliteSchemaVersion } from '../sqlite/table-source.js';
import type { Engine } from '../types.js';
import { connectPostgresOrRefuse } from './backup.js';
import { BadBackupFile, EntryKind, readEntries, verifyBackup, type BackupHeader } from './container.js';
import { assertDataDirEmpty, DB_FILE, KEY_FILE, knownSchemaVersion, MEDIA_DIR, migrationsOf } from './installation.js';
import { Refused } from './refusal.js';
import { applyMigrationsUpTo } from './schema-setup.js';
import type { TableShape } from './tables.js';

export interface RestoreTarget {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly secretKey: Buffer | undefined;
}

export interface RestoreResult {
  readonly header: BackupHeader;
  readonly counts: ReadonlyArray<readonly [string, number]>;
  readonly mediaFiles: number;
}

function checkHeader(file: string, target: RestoreTarget): BackupHeader {
  let header: BackupHeader;
  try {
    header = verifyBackup(file);
  } catch (error) {
    if (error instanceof BadBackupFile) throw new Refused(error.message);
    throw error;
  }
  const engine: Engine = target.databaseUrl ? 'postgres' : 'sqlite';
  if (header.engine !== engine) throw new Refused(`this backup was taken on ${header.engine}; it restores on ${header.engine} only (the target is ${engine})`);
  const known = knownSchemaVersion(engine);
  if (header.schemaVersion > known) throw new Refused(`this backup has schema version ${header.schemaVersion}, newer than this Parley build supports (${known}); upgrade Parley first`);
  return header;
}

/** The key the backup carries; a configured PARLEY_SECRET_KEY must be the same. */
function backupKey(file: string, target: RestoreTarget): Buffer | undefined {
  let key: Buffer | undefined;
  for (const entry of readEntries(file)) if (entry.kind === EntryKind.SecretKey) key = entry.data;
  if (key && target.secretKey && !key.equals(target.secretKey)) {
    throw new Refused('PARLEY_SECRET_KEY differs from the key in the backup: the stored secrets could not be opened; unset it or set the backup\'s key');
  }
  return key;
}

export async function restore(file: string, target: RestoreTarget, progress: (line: string) => void = () => undefined): Promise<RestoreResult> {
  const header = checkHeader(file, target);
  const key = backupKey(file, target);
  assertDataDirEmpty(target.dataDir, !target.databaseUrl);
  if (target.databaseUrl && key) {
    const keyFile = path.join(target.dataDir, KEY_FILE);
    if (fs.existsSync(keyFile) && !target.secretKey && Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'hex').equals(key) === false) {
      throw new Refused(`${keyFile} holds a different key than the backup; remove it or use another DATA_DIR`);
    }
  }
  fs.mkdirSync(target.dataDir, { recursive: true });
  const scratch = path.join(target.dataDir, `.parley-restore-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(path.join(scratch, MEDIA_DIR), { recursive: true });
  try {
    let mediaCount = 0;
    let counts: Array<readonly [string, number]> = [];
    if (header.engine === 'sqlite') {
      counts = stageSqlite(file, scratch);
    }
    for (const entry of readEntries(file)) {
      if (entry.kind !== EntryKind.Media) continue;
      if (entry.name.includes('/') || entry.name.includes('\\') || entry.name.startsWith('.')) throw new Refused(`the backup holds a media file with a bad name: ${JSON.stringify(entry.name)}`);
      const media = path.join(scratch, MEDIA_DIR, entry.name);
      if (!fs.existsSync(media)) mediaCount += 1;
      fs.appendFileSync(media, entry.data);
    }
    if (key && !target.secretKey) fs.writeFileSync(path.join(scratch, KEY_FILE), `${key.toString('hex')}\n`, { mode: 0o600 });
    if (header.engine === 'postgres') counts = await loadPostgres(file, header, target.databaseUrl as string, progress);
    // Into place: the database (SQLite) last, so a DATA_DIR without parley.db is still "empty".
    const mediaDir = path.join(target.dataDir, MEDIA_DIR);
    fs.mkdirSync(mediaDir, { recursive: true });
    for (const name of fs.readdirSync(path.join(scratch, MEDIA_DIR))) fs.renameSync(path.join(scratch, MEDIA_DIR, name), path.join(mediaDir, name));
    if (fs.existsSync(path.join(scratch, KEY_FILE))) fs.renameSync(path.join(scratch, KEY_FILE), path.join(target.dataDir, KEY_FILE));
    if (header.engine === 'sqlite') fs.renameSync(path.join(scratch, DB_FILE), path.join(target.dataDir, DB_FILE));
    return { header, counts, mediaFiles: mediaCount };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function stageSqlite(file: string, scratch: string): Array<readonly [string, number]> {
  const staged = path.join(scratch, DB_FILE);
  const fd = fs.openSync(staged, 'w', 0o600);
  try {
    for (const entry of readEntries(file)) if (entry.kind === EntryKind.SqliteFile) fs.writeSync(fd, entry.data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const raw = openExistingSqlite(staged);
  try {
    const check = raw.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Refused(`the database in the backup is damaged: ${String(check)}`);
    sqliteSchemaVersion(raw);
  } finally {
    raw.close();
  }
  return [[DB_FILE, fs.statSync(staged).size]];
}

async function loadPostgres(file: string, header: BackupHeader, url: string, progress: (line: string) => void): Promise<Array<readonly [string, number]>> {
  const client = await connectPostgresOrRefuse(url);
  try {
    const existing = await postgresTableNames(client);
    if (existing.length > 0) throw new Refused(`the PostgreSQL database is not empty (it has ${existing.length} tables, ${existing.slice(0, 3).join(', ')}…); restore into an empty database`);
    await client.query('BEGIN');
    await applyMigrationsUpTo(client, migrationsOf('postgres'), header.schemaVersion);
    const shapes = new Map<string, TableShape>((await postgresTables(client)).map((t) => [t.name, t]));
    const counts = new Map<string, number>();
    for (const entry of readEntries(file)) {
      if (entry.kind !== EntryKind.Rows) continue;
      const table = shapes.get(entry.name);
      if (!table) throw new Refused(`the backup holds rows of table ${entry.name}, which schema version ${header.schemaVersion} does not have`);
      const json = entry.data.toString('utf8');
      await insertRows(client, table, json);
      const n = (JSON.parse(json) as unknown[]).length;
      counts.set(table.name, (counts.get(table.name) ?? 0) + n);
      progress(`restore: ${table.name} ${counts.get(table.name)}`);
    }
    await advanceIdentities(client);
    await client.query('COMMIT');
    return [...shapes.keys()].filter((name) => name !== 'parley_migrations').map((name) => [name, counts.get(name) ?? 0] as const);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
