import type { Migration } from '../../types.js';

/**
 * Instances announce themselves: one row per running Parley process, its beat counter moved every
 * second (modules/cluster). A job's lease owner (`jobs.locked_by`) is the instance id, so the
 * leases of an instance whose beat stopped are found along `jobs_lease_owner` and released.
 */
export const instances: Migration = {
  version: 74,
  name: 'instances',
  statements: [
    `CREATE TABLE instances (
      id TEXT PRIMARY KEY,
      beat INTEGER NOT NULL,
      heartbeat_at INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      in_flight INTEGER NOT NULL
    )`,
    `CREATE INDEX jobs_lease_owner ON jobs (locked_by) WHERE locked_by IS NOT NULL`,
  ],
};
