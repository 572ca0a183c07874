import type { Migration } from '../../types.js';

export const jobs: Migration = {
  version: 2,
  name: 'jobs',
  statements: [
    `CREATE TABLE jobs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      queue TEXT NOT NULL,
      ordering_key TEXT,
      payload TEXT NOT NULL,
      run_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      locked_until INTEGER,
      locked_by TEXT,
      last_error TEXT,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX jobs_due ON jobs (queue, run_at)`,
    `CREATE INDEX jobs_ordering ON jobs (ordering_key, id) WHERE ordering_key IS NOT NULL`,
  ],
};
