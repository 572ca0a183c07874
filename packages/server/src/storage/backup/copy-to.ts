/**
 * `copy-to <postgres-url>`: a stopped SQLite installation into an empty PostgreSQL database.
 *
 * States of the target: empty → copying (a `parley_copy_state` table names the source and keeps
 * the last key written per table; it is created in the same transaction as the schema) →
 * finished (state table dropped, identities advanced, in one transaction). Each batch of rows and
 * its table's progress are written in one transaction, so an interruption at any point leaves a
 * state the next run continues from. A database holding Parley tables without a copy state (a
 * finished copy, another installation) is refused.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { secretBox } from '../../kernel/secret-box.js';
import { advanceIdentities, insertRowsSql, postgresCount, postgresTableNames, postgresTables } from '../postgres/table-io.js';
import { openExistingSqlite, sqliteBatch, sqliteCount, sqliteSchemaVersion, sqliteTables, type RawSqlite } from '../sqlite/table-source.js';
import { connectPostgresOrRefuse } from './backup.js';
import { currentKey, DB_FILE, knownSchemaVersion, migrationsOf } from './installation.js';
import { Refused } from './refusal.js';
import { applyMigrationsUpTo } from './schema-setup.js';
import { BOOKKEEPING_TABLES, keyOf, rowsJson, type TableShape } from './tables.js';

export interface CopyOptions {
  /** Rows per batch (PARLEY_COPY_BATCH_ROWS). */
  readonly batchRows?: number;
  readonly progress?: (line: string) => void;
}

export interface CopyResult {
  readonly schemaVersion: number;
  readonly resumed: boolean;
  readonly counts: ReadonlyArray<readonly [string, number]>;
}

interface Source {
  readonly dataDir: string;
  readonly secretKey: Buffer | undefined;
}

const STATE = 'parley_copy_state';
/** Records how far a table's copy got: parameters `$at` table, then last key as JSON, then done. */
const saveProgress = (at: number) => `INSERT INTO ${STATE} (table_name, last_key, done) VALUES ($${at}, $${at + 1}, $${at + 2})
  ON CONFLICT (table_name) DO UPDATE SET last_key = EXCLUDED.last_key, done = EXCLUDED.done`;

/** Columns that hold sealed secrets: one of them must open with the key the copy carries. */
const SEALED = [
  ['rest_channels', 'secret_sealed'],
  ['callback_rules', 'secret'],
] as const;

function checkKey(raw: RawSqlite, key: Buffer | undefined): void {
  for (const [table, column] of SEALED) {
    const exists = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table);
    if (!exists) continue;
    const row = raw.prepare(`SELECT "${column}" AS v FROM "${table}" LIMIT 1`).get() as { v: string } | undefined;
    if (!row) continue;
    if (!key) throw new Refused('the installation holds sealed secrets but no key (no PARLEY_SECRET_KEY, no secret.key in DATA_DIR)');
    try {
      secretBox(key).open(row.v);
    } catch {
      throw new Refused('the secret key (PARLEY_SECRET_KEY or DATA_DIR/secret.key) does not open the installation\'s stored secrets; set the key it was sealed with');
    }
  }
}

/** A beat younger than this says an instance still serves the installation. */
const RUNNING_BEAT_MS = 10_000;

/** Refuses a source the service still runs on: its instance beats every second (modules/cluster). */
function assertStopped(raw: RawSqlite): void {
  const exists = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instances'`).get();
  if (!exists) return;
  const live = raw.prepare('SELECT COUNT(*) AS n FROM instances WHERE heartbeat_at > ?').get(Date.now() - RUNNING_BEAT_MS) as { n: number };
  if (live.n > 0) throw new Refused('Parley is running on this installation (an instance beat in the last 10 s); stop it, then run copy-to');
}

export async function copyTo(source: Source, url: string, options: CopyOptions = {}): Promise<CopyResult> {
  const progress = options.progress ?? (() => undefined);
  const batchRows = options.batchRows ?? 5000;
  const dbFile = path.join(source.dataDir, DB_FILE);
  if (!fs.existsSync(dbFile)) throw new Refused(`no SQLite installation in ${source.dataDir} (no ${DB_FILE})`, 2);
  const raw = openExistingSqlite(dbFile);
  try {
    const schemaVersion = sqliteSchemaVersion(raw);
    const known = knownSchemaVersion('sqlite');
    if (schemaVersion > known) throw new Refused(`the SQLite database has schema version ${schemaVersion}, newer than this Parley build supports (${known})`);
    assertStopped(raw);
    const key = currentKey(source.secretKey, source.dataDir);
    checkKey(raw, key);
    const fingerprint = `${fs.realpathSync(dbFile)}#${createHash('sha256').update(key ?? Buffer.alloc(0)).digest('hex').slice(0, 16)}#${schemaVersion}`;
    const client = await connectPostgresOrRefuse(url);
    try {
      // A batch and its progress commit together; a batch lost to a crash of the database is
      // simply copied again, so commits need not wait for the disk.
      await client.query('SET synchronous_commit = off');
      const resumed = await prepareTarget(client, fingerprint, schemaVersion);
      progress(resumed ? 'copy-to: resuming an interrupted copy' : 'copy-to: schema created');
      const counts = await copyTables(raw, client, batchRows, progress);
      await finish(client, counts);
      return { schemaVersion, resumed, counts };
    } finally {
      await client.end();
    }
  } finally {
    raw.close();
  }
}

/** Empty → copying (schema and state in one transaction); copying of this source → resumed; else refused. */
async function prepareTarget(client: pg.Client, fingerprint: string, schemaVersion: number): Promise<boolean> {
  const tables = await postgresTableNames(client);
  if (tables.includes(STATE)) {
    const state = await client.query<{ last_key: string }>(`SELECT last_key FROM ${STATE} WHERE table_name = ''`);
    if (state.rows[0]?.last_key !== fingerprint) throw new Refused('the PostgreSQL database holds an interrupted copy of another installation; use an empty database');
    return true;
  }
  if (tables.length > 0) throw new Refused(`the PostgreSQL database is not empty (it has ${tables.length} tables${tables.includes('parley_migrations') ? ', a Parley installation or a finished copy' : ''}); copy into an empty database`);
  await client.query('BEGIN');
  try {
    await client.query(`CREATE TABLE ${STATE} (table_name TEXT PRIMARY KEY, last_key TEXT, done INTEGER NOT NULL DEFAULT 0)`);
    await client.query(`INSERT INTO ${STATE} (table_name, last_key, done) VALUES ('', $1, 0)`, [fingerprint]);
    await applyMigrationsUpTo(client, migrationsOf('postgres'), schemaVersion);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return false;
}

async function copyTables(raw: RawSqlite, client: pg.Client, batchRows: number, progress: (line: string) => void): Promise<Array<readonly [string, number]>> {
  const sourceTables = new Map(sqliteTables(raw).map((t) => [t.name, t]));
  const targetTables = (await postgresTables(client)).filter((t) => !BOOKKEEPING_TABLES.has(t.name));
  const state = new Map(
    (await client.query<{ table_name: string; last_key: string | null; done: number }>(`SELECT table_name, last_key, done FROM ${STATE}`)).rows.map((r) => [r.table_name, r]),
  );
  for (const name of sourceTables.keys()) {
    if (!BOOKKEEPING_TABLES.has(name) && !targetTables.some((t) => t.name === name)) progress(`copy-to: ${name} skipped (SQLite only)`);
  }
  const counts: Array<readonly [string, number]> = [];
  for (const target of targetTables) {
    const from = sourceTables.get(target.name);
    const total = from ? sqliteCount(raw, target.name) : 0;
    counts.push([target.name, total]);
    if (!from) {
      progress(`copy-to: ${target.name} left empty (PostgreSQL only)`);
      continue;
    }
    const missing = target.columns.filter((c) => !from.columns.includes(c));
    if (missing.length > 0) throw new Refused(`table ${target.name} has columns ${missing.join(', ')} in PostgreSQL but not in SQLite; the two schemas differ`);
    const row = state.get(target.name);
    if (row?.done) continue;
    await copyTable(raw, client, { ...target, columns: target.columns }, row?.last_key ? (JSON.parse(row.last_key) as unknown[]) : undefined, { batchRows, total, progress });
  }
  return counts;
}

async function copyTable(
  raw: RawSqlite,
  client: pg.Client,
  table: TableShape,
  start: unknown[] | undefined,
  options: { batchRows: number; total: number; progress: (line: string) => void },
): Promise<void> {
  let copied = start ? await postgresCount(client, table.name) : 0;
  let rows = sqliteBatch(raw, table, start, options.batchRows);
  let lastKey = start ? JSON.stringify(start) : null;
  for (;;) {
    const done = rows.length < options.batchRows;
    if (rows.length > 0) lastKey = rowsJson(keyOf(table, rows[rows.length - 1] as Record<string, unknown>));
    // One statement per batch: the rows and the table's progress commit together, so a copy
    // stopped at any point resumes after the last batch written. While PostgreSQL writes it,
    // the next batch is read from SQLite.
    const write =
      rows.length > 0
        ? client.query(`WITH moved AS (${insertRowsSql(table)}) ${saveProgress(2)}`, [rowsJson(rows), table.name, lastKey, done ? 1 : 0])
        : client.query(saveProgress(1), [table.name, lastKey, done ? 1 : 0]);
    const written = rows.length;
    const next = done ? [] : sqliteBatch(raw, table, JSON.parse(lastKey as string) as unknown[], options.batchRows);
    await write;
    copied += written;
    options.progress(`copy-to: ${table.name} ${copied}/${options.total}`);
    if (done) return;
    rows = next;
  }
}

/** Every table's count checked against the source, identities advanced, the copy state dropped: one transaction. */
async function finish(client: pg.Client, counts: ReadonlyArray<readonly [string, number]>): Promise<void> {
  await client.query('BEGIN');
  try {
    for (const [table, expected] of counts) {
      const got = await postgresCount(client, table);
      if (got !== expected) throw new Refused(`table ${table} has ${got} rows in PostgreSQL but ${expected} in SQLite; was the service running? Stop it and copy into an empty database`);
    }
    await advanceIdentities(client);
    await client.query(`DROP TABLE ${STATE}`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
