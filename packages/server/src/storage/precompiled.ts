/**
 * Queries built and compiled once, then run with fresh parameters: on the hottest paths Kysely's
 * per-call building and compiling costs several times what the statement itself does.
 * `build` uses placeholder values; the parameters passed at run time must follow the order in
 * which they appear in the compiled SQL (their count is checked). On a transaction that has a
 * direct runner (direct-statements.ts) they go straight to the driver.
 */
import { CompiledQuery, sql, type Compilable, type InsertQueryBuilder, type InsertResult, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { directRunnerIn } from './direct-statements.js';

/** Refuses `params` that do not match the compiled statement's placeholders in number. */
function checkParams(compiled: CompiledQuery<unknown>, params: readonly unknown[], size?: number): void {
  if (params.length !== compiled.parameters.length) {
    const what = size === undefined ? 'precompiled query' : `precompiled query of size ${size}`;
    throw new Error(`${what} expects ${compiled.parameters.length} parameters, got ${params.length}`);
  }
}

/** Runs a compiled statement with `params`, which must match its placeholders in number. */
async function run<R>(db: Kysely<Database>, compiled: CompiledQuery<R>, params: readonly unknown[], size?: number): Promise<R[]> {
  checkParams(compiled, params, size);
  const runner = directRunnerIn(db);
  if (runner) return runner(compiled.sql, params) as R[];
  const result = await db.executeQuery(CompiledQuery.raw(compiled.sql, [...params]) as CompiledQuery<R>);
  return result.rows;
}

export function precompiled<R>(build: (db: Kysely<Database>) => Compilable<R>) {
  let compiled: CompiledQuery<R> | undefined;
  return (db: Kysely<Database>, params: readonly unknown[]): Promise<R[]> => run(db, (compiled ??= build(db).compile()), params);
}

/**
 * A one-row INSERT that answers the new row's `id`, or undefined when it inserted nothing (an
 * `ON CONFLICT DO NOTHING` that met a conflict); the table's `id` must be its INTEGER PRIMARY KEY
 * (SQLite's rowid). On SQLite's direct path the insert runs as built and the id is its own rowid:
 * SQLite's RETURNING collects its rows in a temporary table before it hands them out, which cost
 * about 6 µs a customer message in a micro-benchmark. Elsewhere it runs
 * with `RETURNING id`.
 */
export function precompiledInsertId<T extends keyof Database>(build: (db: Kysely<Database>) => InsertQueryBuilder<Database, T, InsertResult>) {
  let compiled: { plain: CompiledQuery<InsertResult>; returningId: CompiledQuery<{ id: number }> } | undefined;
  return async (db: Kysely<Database>, params: readonly unknown[]): Promise<number | undefined> => {
    if (!compiled) {
      const insert = build(db);
      compiled = { plain: insert.compile(), returningId: insert.returning(sql<number>`id`.as('id')).compile() };
    }
    const runner = directRunnerIn(db);
    if (runner?.run) {
      checkParams(compiled.plain, params);
      const outcome = runner.run(compiled.plain.sql, params);
      return Number(outcome.changes) > 0 ? Number(outcome.lastInsertRowid) : undefined;
    }
    const [row] = await run(db, compiled.returningId, params);
    return row?.id;
  };
}

/**
 * `precompiled` for statements whose shape depends on a count (multi-row inserts, IN lists):
 * compiled once per count, the most recently used `maxShapes` counts kept.
 */
export function precompiledSized<R>(build: (db: Kysely<Database>, size: number) => Compilable<R>, maxShapes = 64) {
  const shapes = new Map<number, CompiledQuery<R>>();
  return (db: Kysely<Database>, size: number, params: readonly unknown[]): Promise<R[]> => {
    let compiled = shapes.get(size);
    if (compiled) {
      shapes.delete(size);
    } else {
      compiled = build(db, size).compile();
      if (shapes.size >= maxShapes) shapes.delete(shapes.keys().next().value as number);
    }
    shapes.set(size, compiled);
    return run(db, compiled, params, size);
  };
}

/** `n` copies of a placeholder value, for `build`: the rows of a multi-row insert, the items of an IN list. */
export const copies = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

/**
 * A row limit to bind as a parameter: `LIMIT CAST(? AS INTEGER)` instead of `LIMIT ?`.
 *
 * SQLite (3.53, as better-sqlite3 bundles it) reads a bound `LIMIT ?` value while it plans a statement, and so marks
 * the statement to be compiled again whenever that parameter is bound. better-sqlite3 binds every
 * parameter on every run, so a plain `LIMIT ?` recompiles its statement on every execution: the
 * job claim took 78 µs instead of 26 µs, an empty claim 31 µs instead of 3 µs. The planner does
 * not read through a CAST. PostgreSQL takes the same text.
 */
export function limitParam(limit: number): RawBuilder<number> {
  return sql<number>`CAST(${limit} AS INTEGER)`;
}
