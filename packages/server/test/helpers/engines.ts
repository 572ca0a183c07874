/**
 * Real databases for tests: a fresh SQLite file, or a fresh PostgreSQL database created for the
 * test and dropped after it. Suites run once per engine with `describe.each(ENGINES)`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Clock } from '../../src/kernel/clock.js';
import { openStorage, type Engine, type Storage } from '../../src/storage/index.js';

/** Admin connection used to create and drop per-test databases. */
export const PG_ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** PostgreSQL suites are part of `npm test`; set PARLEY_TEST_SKIP_PG=1 only on a machine without it. */
export const ENGINES: Engine[] = process.env.PARLEY_TEST_SKIP_PG === '1' ? ['sqlite'] : ['sqlite', 'postgres'];

export interface TestDatabase {
  engine: Engine;
  /** Config fragment that points Parley at this database. */
  config: { databaseUrl: string | undefined; dataDir: string };
  /** Remove the database (drop or delete the file). */
  destroy(): Promise<void>;
}

function pgUrlFor(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  if (engine === 'sqlite') {
    return {
      engine,
      config: { databaseUrl: undefined, dataDir },
      destroy: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `parley_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    engine,
    config: { databaseUrl: pgUrlFor(name), dataDir },
    destroy: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A migrated Storage on a fresh database; `cleanup` closes and removes it. */
export async function createTestStorage(engine: Engine, clock: Clock): Promise<{ storage: Storage; db: TestDatabase; cleanup: () => Promise<void> }> {
  const db = await createTestDatabase(engine);
  const storage = await openStorage(db.config, clock);
  return {
    storage,
    db,
    cleanup: async () => {
      await storage.close();
      await db.destroy();
    },
  };
}
