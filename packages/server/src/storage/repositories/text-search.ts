/**
 * Case-insensitive "contains" on a text column, the same on both engines: SQLite folds with
 * `parley_lower` (sqlite/open.ts, JavaScript's toLowerCase), PostgreSQL with `lower`. The needle
 * comes already folded; a NULL column matches nothing. A scan of the rows the other conditions
 * leave: meant for admin lists, not for hot paths.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Engine } from '../types.js';

export function containsFolded(engine: Engine, column: string, folded: string): RawBuilder<SqlBool> {
  return engine === 'sqlite' ? sql<SqlBool>`instr(parley_lower(${sql.ref(column)}), ${folded}) > 0` : sql<SqlBool>`strpos(lower(${sql.ref(column)}), ${folded}::text) > 0`;
}
