/**
 * Kysely's view of the database: the union of every module's tables. Each module declares its
 * own tables next to its code; this file only composes them.
 */
import type { AccountsTables } from './tables/accounts.js';
import type { CallbacksTables } from './tables/callbacks.js';
import type { ChannelTables } from './tables/channel.js';
import type { ConversationChangesTables } from './tables/conversation-changes.js';
import type { ImSdkTables } from './tables/im-sdk.js';
import type { ImTables } from './tables/im.js';
import type { InstancesTables } from './tables/instances.js';
import type { JobsTables } from './tables/jobs.js';
import type { PresendTables } from './tables/presend.js';
import type { DeliveryLogTables } from './tables/delivery-log.js';
import type { OperationsTables } from './tables/operations.js';

export interface MigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface Database extends AccountsTables, JobsTables, ChannelTables, ConversationChangesTables, ImTables, ImSdkTables, CallbacksTables, InstancesTables, PresendTables, DeliveryLogTables, OperationsTables {
  parley_migrations: MigrationsTable;
}
