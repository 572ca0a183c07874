import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import type { Capabilities } from '../types.js';
import { postgresMigrations } from './migrations/index.js';

export const postgresCapabilities: Capabilities = Object.freeze({
  engine: 'postgres',
  skipLocked: true,
  listenNotify: true,
  multiWriter: true,
  directStatements: false,
});

// BIGINT (int8) and NUMERIC counts come back as strings by default; Parley's ids and millisecond
// timestamps fit in a double, so read them as numbers.
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

export function openPostgres(connectionString: string, options: { poolSize?: number } = {}) {
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types });
  // A client that loses its connection must not crash the process: idle ones report through the
  // pool, and a checked-out one can emit 'error' after its query already failed with the same
  // error. The pool replaces broken clients; callers see the failed query.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    capabilities: postgresCapabilities,
    migrations: postgresMigrations,
    lock: async (trx: Kysely<Database>) => {
      // Serialise migrations across instances booting at the same time.
      await sql`SELECT pg_advisory_xact_lock(7419001)`.execute(trx);
    },
    ping: async () => {
      await sql`SELECT 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
