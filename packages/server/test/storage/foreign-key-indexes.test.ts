/**
 * Every foreign key whose parent rows can be deleted has an index leading with its columns, on
 * both engines, so deleting an agent, a skill group or an association never scans a child table.
 * The exceptions are keys whose parent rows are never deleted.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/index.js';
import type { Database } from '../../src/storage/schema.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage, ENGINES } from '../helpers/engines.js';

interface ForeignKey {
  table: string;
  columns: string[];
  parent: string;
}

/** Parents that are never deleted: nothing deletes a tenant. (IM messages are: recall, history retention.) */
const NEVER_DELETED = new Set(['deliveries(tenant_id) -> tenants']);

async function sqliteKeys(db: Kysely<Database>): Promise<{ keys: ForeignKey[]; indexes: Map<string, string[][]> }> {
  const tables = (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db)).rows.map((r) => r.name);
  const keys: ForeignKey[] = [];
  const indexes = new Map<string, string[][]>();
  for (const table of tables) {
    const fks = (await sql<{ id: number; seq: number; table: string; from: string }>`SELECT * FROM pragma_foreign_key_list(${table})`.execute(db)).rows;
    for (const id of new Set(fks.map((f) => f.id))) {
      const parts = fks.filter((f) => f.id === id).sort((a, b) => a.seq - b.seq);
      keys.push({ table, columns: parts.map((p) => p.from), parent: parts[0]!.table });
    }
    const list = (await sql<{ name: string }>`SELECT name FROM pragma_index_list(${table})`.execute(db)).rows;
    const columns: string[][] = [];
    for (const index of list) columns.push((await sql<{ name: string }>`SELECT name FROM pragma_index_info(${index.name}) ORDER BY seqno`.execute(db)).rows.map((r) => r.name));
    indexes.set(table, columns);
  }
  return { keys, indexes };
}

async function postgresKeys(db: Kysely<Database>): Promise<{ keys: ForeignKey[]; indexes: Map<string, string[][]> }> {
  const keys = (
    await sql<{ table: string; columns: string[]; parent: string }>`
      SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS parent,
             array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns
      FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace
      WHERE c.contype = 'f' AND s.nspname = current_schema()`.execute(db)
  ).rows;
  const rows = (
    await sql<{ table: string; columns: string[] }>`
      SELECT i.indrelid::regclass::text AS table,
             array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) AS columns
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
      WHERE s.nspname = current_schema()`.execute(db)
  ).rows;
  const indexes = new Map<string, string[][]>();
  for (const row of rows) indexes.set(row.table, [...(indexes.get(row.table) ?? []), row.columns]);
  return { keys, indexes };
}

describe.each(ENGINES)('foreign-key indexes on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, new FakeClock()));
  });
  afterAll(async () => cleanup?.());

  it('every foreign key whose parent rows are deleted has an index leading with its columns', async () => {
    const { keys, indexes } = engine === 'sqlite' ? await sqliteKeys(storage.db) : await postgresKeys(storage.db);
    expect(keys.length).toBeGreaterThan(10);
    const leadsWith = (index: string[], columns: string[]) => columns.every((c, i) => index[i] === c);
    const unindexed = keys
      .filter((k) => !(indexes.get(k.table) ?? []).some((index) => leadsWith(index, k.columns)))
      .map((k) => `${k.table}(${k.columns.join(',')}) -> ${k.parent}`)
      .sort();
    expect(unindexed).toEqual([...NEVER_DELETED].sort());
  });
});
