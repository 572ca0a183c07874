/**
 * Kysely's view of the database: the union of every module's tables. Each module declares its
 * own tables next to its code; this file only composes them.
 */
import type { AccountsTables } from '../modules/accounts/tables.js';
import type { CallbacksTables } from '../modules/callbacks/tables.js';
import type { ChannelTables } from '../modules/channel/tables.js';
import type { ImTables } from '../modules/im/tables.js';
import type { JobsTables } from '../modules/jobs/tables.js';

export interface MigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface Database extends AccountsTables, JobsTables, ChannelTables, ImTables, CallbacksTables {
  parley_migrations: MigrationsTable;
}
