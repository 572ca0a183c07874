/**
 * Reading and writing a PostgreSQL database table by table (backups, restores and `copy-to`):
 * the tables, columns, keys and foreign keys from the catalog, rows in primary-key order, batches
 * written with one statement each, and identity columns moved past the rows written.
 * Integers are read as strings (pg's default for int8), so none loses precision on the way.
 */
import pg from 'pg';
import { keysetQuery, orderByReferences, quoteIdent, rowsJson, type TableShape } from '../backup/tables.js';

/** A single connection (a snapshot or a transaction spans the whole work). */
export async function connectPostgres(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The tables of the current schema, in an order that satisfies their foreign keys. */
export async function postgresTables(client: pg.ClientBase): Promise<TableShape[]> {
  const columns = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const keys = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.relname AS table_name, a.attname AS column_name
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
     WHERE i.indisprimary ORDER BY c.relname, k.ord`,
  );
  const references = await client.query<{ from_table: string; to_table: string }>(
    `SELECT c.relname AS from_table, r.relname AS to_table
     FROM pg_constraint f
     JOIN pg_class c ON c.oid = f.conrelid
     JOIN pg_class r ON r.oid = f.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     WHERE f.contype = 'f'`,
  );
  const tables = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const shapes = new Map<string, { columns: string[]; primaryKey: string[] }>(tables.rows.map((t) => [t.table_name, { columns: [], primaryKey: [] }]));
  for (const row of columns.rows) shapes.get(row.table_name)?.columns.push(row.column_name);
  for (const row of keys.rows) shapes.get(row.table_name)?.primaryKey.push(row.column_name);
  const order = orderByReferences([...shapes.keys()], references.rows.map((r) => [r.from_table, r.to_table] as const));
  return order.map((name) => ({ name, ...(shapes.get(name) as { columns: string[]; primaryKey: string[] }) }));
}

export async function postgresTableNames(client: pg.ClientBase): Promise<string[]> {
  const tables = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  return tables.rows.map((t) => t.table_name);
}

export async function postgresSchemaVersion(client: pg.ClientBase): Promise<number> {
  const result = await client.query<{ v: number | null }>('SELECT MAX(version)::int AS v FROM parley_migrations');
  return Number(result.rows[0]?.v ?? 0);
}

export async function postgresCount(client: pg.ClientBase, table: string): Promise<number> {
  const result = await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${quoteIdent(table)}`);
  return Number(result.rows[0]?.n ?? 0);
}

/** The next `limit` rows after `after` (a key; undefined for the first batch). */
export async function postgresBatch(client: pg.ClientBase, table: TableShape, after: readonly unknown[] | undefined, limit: number): Promise<Array<Record<string, unknown>>> {
  const result = await client.query(keysetQuery(table, after !== undefined, (i) => `$${i}`), [...(after ?? []), limit]);
  return result.rows as Array<Record<string, unknown>>;
}

/** Writes rows (objects by column name, or their JSON) into `table` with one statement. */
export async function insertRows(client: pg.ClientBase, table: TableShape, rows: readonly unknown[] | string): Promise<void> {
  const json = typeof rows === 'string' ? rows : rowsJson(rows);
  const columns = table.columns.map(quoteIdent).join(', ');
  const name = quoteIdent(table.name);
  await client.query(`INSERT INTO ${name} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${name}, $1::json)`, [json]);
}

/** Moves every identity column's sequence past the largest value stored, so new rows do not collide. */
export async function advanceIdentities(client: pg.ClientBase): Promise<void> {
  const identities = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`,
  );
  for (const { table_name: table, column_name: column } of identities.rows) {
    await client.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), GREATEST(COALESCE(MAX(${quoteIdent(column)}), 0), 1), MAX(${quoteIdent(column)}) IS NOT NULL) FROM ${quoteIdent(table)}`,
      [quoteIdent(table), column],
    );
  }
}
