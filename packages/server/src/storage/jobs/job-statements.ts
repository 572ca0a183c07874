/**
 * The statements of the job queue that run for every job, compiled once per batch size
 * (storage/precompiled.ts), not built per call. Per queue instance, since the SQL is the engine's own.
 */
import { sql, type Selectable } from 'kysely';
import { copies, precompiledInsertId, precompiledSized } from '../precompiled.js';
import type { Database } from '../schema.js';

/** What a claim reads of a job row (not the lease columns nor the last error). */
export type ClaimedRow = Pick<Selectable<Database['jobs']>, 'id' | 'queue' | 'payload' | 'attempts' | 'ordering_key' | 'run_at' | 'created_at'>;
export const CLAIMED_COLUMNS = sql.raw('id, queue, payload, attempts, ordering_key, run_at, created_at');

export function jobStatements() {
  const jobRow = { queue: '', ordering_key: null, payload: '', run_at: 0, locked_until: null, locked_by: null, last_error: null, created_at: 0 };
  return {
    // per row: [queue, ordering_key, payload, run_at, locked_until, locked_by, last_error, created_at]
    insert: precompiledSized((db, n) => db.insertInto('jobs').values(copies(n, jobRow))),
    // [queue, ordering_key, payload, run_at, locked_until, locked_by, last_error, created_at]; the new id
    insertOne: precompiledInsertId((db) => db.insertInto('jobs').values(jobRow)),
    // [...ids]
    delete: precompiledSized((db, n) => db.deleteFrom('jobs').where('id', 'in', copies(n, 0))),
    // [...ids, workerId]. The owner is compared through COALESCE so that no plan can read the
    // rows through `jobs_lease_owner` (PostgreSQL): on a table not yet analysed the planner
    // costed that index below the primary key, and a bitmap scan of it read every entry the
    // worker had left there, dead ones included (bitmap scans never mark them dead), for each
    // batch of finished jobs. The ids, along the primary key, are the only way in.
    deleteOwn: precompiledSized((db, n) =>
      db
        .deleteFrom('jobs')
        .where('id', 'in', copies(n, 0))
        .where(sql`COALESCE(locked_by, '')`, '=', ''),
    ),
  };
}
