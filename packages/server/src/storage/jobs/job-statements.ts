/**
 * The statements of the job queue that run for every job, compiled once per batch size
 * (storage/precompiled.ts), not built per call. Per queue instance, since the SQL is the engine's own.
 */
import { copies, precompiledInsertId, precompiledSized } from '../precompiled.js';

export function jobStatements() {
  const jobRow = { queue: '', ordering_key: null, payload: '', run_at: 0, locked_until: null, locked_by: null, last_error: null, created_at: 0 };
  return {
    // per row: [queue, ordering_key, payload, run_at, locked_until, locked_by, last_error, created_at]
    insert: precompiledSized((db, n) => db.insertInto('jobs').values(copies(n, jobRow))),
    // [queue, ordering_key, payload, run_at, locked_until, locked_by, last_error, created_at]; the new id
    insertOne: precompiledInsertId((db) => db.insertInto('jobs').values(jobRow)),
    // [...ids]
    delete: precompiledSized((db, n) => db.deleteFrom('jobs').where('id', 'in', copies(n, 0))),
    // [...ids, workerId]
    deleteOwn: precompiledSized((db, n) => db.deleteFrom('jobs').where('id', 'in', copies(n, 0)).where('locked_by', '=', '')),
  };
}
