import type { Generated } from 'kysely';

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  ordering_key: string | null;
  /** JSON */
  payload: string;
  run_at: number;
  attempts: Generated<number>;
  locked_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
}

export interface JobsTables {
  jobs: JobsTable;
}
