/**
 * Direct statements: on an engine that offers them (`capabilities.directStatements`: SQLite, whose
 * adapter makes the runner in sqlite/direct-runner.ts), precompiled statements (precompiled.ts) of
 * a transaction go straight to the driver instead of through Kysely's executor, which costs more
 * than a short statement itself. Valid only while the caller holds the engine's one connection, as
 * a transaction's callback does; so a runner is attached to a transaction (`runDirectly`, by the
 * unit of work), never to the database. This file is the engine-neutral registry.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What a statement that returns no rows did: rows it changed, and the rowid it inserted last. */
export interface RunOutcome {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/**
 * Runs SQL on the engine's one connection, synchronously, and answers its rows (none for a
 * statement that returns none). `run`, when present, runs a statement that returns no rows and
 * answers what it did (precompiledInsertId takes the new row's id from it).
 */
export type DirectRunner = ((sql: string, params: readonly unknown[]) => unknown[]) & {
  run?: (sql: string, params: readonly unknown[]) => RunOutcome;
};

/** The runner of each opened SQLite database (the root handle, not its transactions). */
const ofDatabase = new WeakMap<Kysely<Database>, DirectRunner>();
/** The transactions whose precompiled statements run directly. */
const ofTransaction = new WeakMap<Kysely<Database>, DirectRunner>();

/** Called when the engine opens `db`. */
export function attachDirectRunner(db: Kysely<Database>, runner: DirectRunner): void {
  ofDatabase.set(db, runner);
}

/** The direct runner of an opened database, when its engine has one (`capabilities.directStatements`). */
export function directRunnerOf(db: Kysely<Database>): DirectRunner | undefined {
  return ofDatabase.get(db);
}

/**
 * Precompiled statements run on `trx` (a transaction, or a handle that holds the connection) go
 * to `runner`. Non-precompiled queries on `trx` go through Kysely, on the same connection.
 */
export function runDirectly(trx: Kysely<Database>, runner: DirectRunner): void {
  ofTransaction.set(trx, runner);
}

/** The runner attached to `trx` by runDirectly, if any (precompiled.ts asks on every statement). */
export function directRunnerIn(trx: Kysely<Database>): DirectRunner | undefined {
  return ofTransaction.get(trx);
}
