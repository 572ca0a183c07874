import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/storage/group-commit.js';
import type { Storage } from '../../src/storage/index.js';
import { precompiled } from '../../src/storage/precompiled.js';
import { directRunnerOf, type DirectRunner } from '../../src/storage/sqlite/direct-runner.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage, ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('group commit on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let tenantId: number;
  let transactions = 0;
  let committer: GroupCommitter<string, number>;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, new FakeClock()));
    const db = storage.db;
    tenantId = (await db.insertInto('tenants').values({ name: 't', edition: 'flagship', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
    const original = db.transaction.bind(db);
    (db as { transaction: typeof db.transaction }).transaction = () => {
      transactions++;
      return original();
    };
    committer = new GroupCommitter<string, number>(db, async (trx, name, memo) => {
      memo.set('writes', ((memo.get('writes') as number | undefined) ?? 0) + 1);
      if (name.startsWith('bad')) throw new Error(`bad item ${name}`);
      const row = await trx.insertInto('skill_groups').values({ tenant_id: tenantId, name, created_at: 0 }).returning('id').executeTakeFirstOrThrow();
      return row.id;
    });
  });
  afterAll(async () => cleanup?.());

  const names = async () => (await storage.db.selectFrom('skill_groups').select('name').where('tenant_id', '=', tenantId).orderBy('name').execute()).map((r) => r.name);

  it('commits concurrent writes in one transaction and settles them all', async () => {
    transactions = 0;
    const ids = await Promise.all(['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => committer.submit(n)));
    expect(new Set(ids).size).toBe(5);
    expect(transactions).toBe(1);
    expect(await names()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('rolls back only the write that failed; the others commit', async () => {
    const results = await Promise.allSettled(['b1', 'bad', 'b2', 'a1' /* duplicate name */, 'b3'].map((n) => committer.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await names()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'b3']);
  });
});

describe('group commit on sqlite with the direct runner', () => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let tenantId: number;
  const insert = precompiled((db) => db.insertInto('skill_groups').values({ tenant_id: 0, name: '', created_at: 0 }).returning('id'));
  let ran = 0;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage('sqlite', new FakeClock()));
    tenantId = (await storage.db.insertInto('tenants').values({ name: 't', edition: 'flagship', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => cleanup?.());

  const counting: DirectRunner = (sql, params) => {
    ran++;
    return directRunnerOf(storage.db)!(sql, params);
  };
  const names = async () => (await storage.db.selectFrom('skill_groups').select('name').where('tenant_id', '=', tenantId).orderBy('name').execute()).map((r) => r.name);

  it('runs the precompiled statements of a batch on its transaction: they commit with it, and roll back with it', async () => {
    const committer = new GroupCommitter<string, number>(
      storage.db,
      async (trx, name) => {
        const [row] = await insert(trx, [tenantId, name, 0]);
        // A failure after the direct insert: the whole batch rolls back, then each write runs alone.
        if (name.startsWith('bad')) throw new Error(`bad item ${name}`);
        return (row as { id: number }).id;
      },
      { direct: counting },
    );
    const results = await Promise.allSettled(['d1', 'bad', 'd2'].map((n) => committer.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ran).toBeGreaterThanOrEqual(3);
    expect(await names()).toEqual(['d1', 'd2']);
    // Outside a batch the same statement goes through Kysely (nothing holds the connection).
    const before = ran;
    await insert(storage.db, [tenantId, 'outside', 0]);
    expect(ran).toBe(before);
    expect(await names()).toEqual(['d1', 'd2', 'outside']);
  });
});
