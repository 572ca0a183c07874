/**
 * SQLite's direct statements (storage/direct-statements.ts): the runner that executes a statement
 * on better-sqlite3's one connection, synchronously, without Kysely's executor around it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { DirectRunner } from '../direct-statements.js';

/** What Kysely's SQLite connection does with a statement, without its executor around it. */
export function createDirectRunner(statements: { prepare(text: string): BetterSqlite3.Statement }): DirectRunner {
  return Object.assign(
    (text: string, params: readonly unknown[]) => {
      const statement = statements.prepare(text);
      return statement.reader ? statement.all(params) : (statement.run(params), []);
    },
    { run: (text: string, params: readonly unknown[]) => statements.prepare(text).run(params) },
  );
}

