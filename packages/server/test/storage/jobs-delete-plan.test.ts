/**
 * PostgreSQL: a worker's delete of its finished jobs (`deleteOwn`: the ids, and the lease still
 * its own) goes along the primary key even on a `jobs` table never analysed, as on a new
 * installation. Compared plainly, `locked_by = $n` let the planner take `jobs_lease_owner`
 * there, and each delete then read every entry the worker had left in that index.
 */
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatements } from '../../src/storage/jobs/job-statements.js';
import { migrate } from '../../src/storage/migrate.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations/index.js';
import type { Database } from '../../src/storage/schema.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

describe.runIf(ENGINES.includes('postgres'))("a worker's delete of its jobs on PostgreSQL", () => {
  let target: TestDatabase;
  let db: Kysely<Database>;
  const statements: CompiledQuery[] = [];

  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target.config.databaseUrl, max: 1 }) }),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query);
      },
    });
    await migrate(db, postgresMigrations, { now: () => 1 });
  });

  afterAll(async () => {
    await db?.destroy();
    await target?.destroy();
  });

  it('plans along jobs_pkey on a table never analysed, and deletes only the jobs the worker holds', async () => {
    const ids: number[] = [];
    for (const lockedBy of ['w1', 'w1', 'w2']) {
      const row = await db.insertInto('jobs').values({ queue: 'q', payload: '{}', run_at: 0, locked_until: 10, locked_by: lockedBy, created_at: 0 }).returning('id').executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    statements.length = 0;
    await jobStatements().deleteOwn(db, 3, [...ids, 'w1']);
    const del = statements.find((s) => /^delete from "jobs"/i.test(s.sql));
    expect(del).toBeDefined();
    const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${del!.sql}`, [...ids, 'w1']));
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('jobs_pkey');
    expect(text).not.toContain('jobs_lease_owner');
    const left = await db.selectFrom('jobs').select(['id', 'locked_by']).orderBy('id').execute();
    expect(left.map((r) => r.locked_by)).toEqual(['w2']);
  });
});
