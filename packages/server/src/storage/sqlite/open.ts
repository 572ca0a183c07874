import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import type { Database } from '../schema.js';
import type { Capabilities } from '../types.js';
import { attachDirectRunner } from '../direct-statements.js';
import { createDirectRunner } from './direct-runner.js';
import { BackgroundCheckpointer, SAFETY_NET_PAGES, WAL_SIZE_LIMIT_BYTES } from './checkpointer.js';
import { sqliteMigrations } from './migrations/index.js';

export const sqliteCapabilities: Capabilities = Object.freeze({
  engine: 'sqlite',
  skipLocked: false,
  listenNotify: false,
  multiWriter: false,
  directStatements: true,
});

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; compiling SQL is a large share of a short query's cost. This
 * keeps the most recently used prepared statements by SQL text (a statement busy iterating is
 * never handed out twice).
 */
function withStatementCache(raw: BetterSqlite3.Database): SqliteDatabase & { prepare(text: string): BetterSqlite3.Statement } {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare: (text: string) => {
      const cached = cache.get(text);
      if (cached && !cached.busy) {
        // Re-insert to keep the map in least-recently-used order.
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = raw.prepare(text);
      cache.set(text, statement);
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  } as unknown as SqliteDatabase & { prepare(text: string): BetterSqlite3.Statement };
}

/** Opens (creating if needed) the SQLite file in WAL mode with foreign keys on. */
export function openSqlite(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit is durable against process crashes (kill -9); only an OS crash
  // or power loss can lose the last transactions.
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  // 64 MiB of page cache instead of SQLite's 2 MB default: the indexes every message touches
  // (random msg_id keys among them) stay in memory instead of being read back from the OS.
  raw.pragma(`cache_size = ${-64 * 1024}`);
  raw.pragma('busy_timeout = 5000');
  // Checkpoints run on a worker thread (checkpointer.ts); this connection only as a safety net.
  raw.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  raw.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // SQLite's lower() folds ASCII only; the conversation list's text search folds all of Unicode.
  raw.function('parley_lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  const checkpointer = new BackgroundCheckpointer(file);
  const statements = withStatementCache(raw);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  attachDirectRunner(db, createDirectRunner(statements));
  return {
    db,
    capabilities: sqliteCapabilities,
    migrations: sqliteMigrations,
    ping: async () => {
      await sql`SELECT 1`.execute(db);
    },
    close: async () => {
      await checkpointer.stop();
      await db.destroy();
    },
  };
}
