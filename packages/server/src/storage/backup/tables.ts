/**
 * The shape of the tables a backup or a copy moves, read from the database itself (never a list
 * written by hand, so a table a later migration adds is moved too), and the pure parts of moving
 * them: the order that satisfies foreign keys, and the keyset query that reads a table in
 * primary-key order, one batch after another.
 */

export interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
  /** Primary-key columns in key order. */
  readonly primaryKey: readonly string[];
}

/** Tables of the bookkeeping of migrations and copies: made by the target itself, never moved. */
export const BOOKKEEPING_TABLES: ReadonlySet<string> = new Set(['parley_migrations', 'parley_copy_state']);

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Tables ordered so that every table comes after the tables its foreign keys reference (a
 * reference to itself aside); ties keep alphabetical order. A cycle is an error.
 */
export function orderByReferences(tables: readonly string[], references: ReadonlyArray<readonly [from: string, to: string]>): string[] {
  const names = [...tables].sort();
  const needs = new Map(names.map((name) => [name, new Set<string>()]));
  for (const [from, to] of references) if (from !== to && needs.has(from) && needs.has(to)) needs.get(from)?.add(to);
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < names.length) {
    const next = names.find((name) => !placed.has(name) && [...(needs.get(name) ?? [])].every((dep) => placed.has(dep)));
    if (next === undefined) throw new Error(`the foreign keys between ${names.filter((n) => !placed.has(n)).join(', ')} form a cycle`);
    ordered.push(next);
    placed.add(next);
  }
  return ordered;
}

/**
 * `SELECT` of the next `limit` rows after `after` (the last key read; none for the first batch)
 * in primary-key order. `param(i)` spells the i-th placeholder (1-based) of the engine.
 */
export function keysetQuery(table: TableShape, afterGiven: boolean, param: (i: number) => string): string {
  if (table.primaryKey.length === 0) throw new Error(`table ${table.name} has no primary key and cannot be read in order`);
  const columns = table.columns.map(quoteIdent).join(', ');
  const key = table.primaryKey.map(quoteIdent);
  const where = afterGiven ? ` WHERE (${key.join(', ')}) > (${key.map((_, i) => param(i + 1)).join(', ')})` : '';
  const limit = param(afterGiven ? key.length + 1 : 1);
  return `SELECT ${columns} FROM ${quoteIdent(table.name)}${where} ORDER BY ${key.join(', ')} LIMIT ${limit}`;
}

/** The key of a row, as the parameters of the next batch's query. */
export function keyOf(table: TableShape, row: Record<string, unknown>): unknown[] {
  return table.primaryKey.map((column) => row[column]);
}

/** JSON of rows read from either engine: integers too large for a double travel as strings. */
export function rowsJson(rows: readonly unknown[]): string {
  return JSON.stringify(rows, (_key, value: unknown) => {
    if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    if (value instanceof Uint8Array || (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer')) {
      throw new Error('binary column values are not supported by the copy');
    }
    return value;
  });
}
