/**
 * Statements compiled once per size: the right rows for every size, wrong arity refused, shapes
 * bounded. One-row inserts that answer the new id: the row's id, or none after a conflict, through
 * Kysely and (SQLite) through the direct runner without RETURNING.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copies, precompiledInsertId, precompiledSized } from '../../src/storage/precompiled.js';
import { directRunnerOf, runDirectly, type DirectRunner } from '../../src/storage/direct-statements.js';
import type { Storage } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestStorage } from '../helpers/engines.js';

describe.each(ENGINES)('statements compiled per size on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, new FakeClock()));
  });
  afterEach(async () => cleanup());

  it('inserts and selects batches of every size with their own parameters, and refuses a wrong count', async () => {
    let builds = 0;
    const row = { queue: '', ordering_key: null, payload: '', run_at: 0, locked_until: null, locked_by: null, last_error: null, created_at: 0 };
    const insert = precompiledSized((db, n) => {
      builds++;
      return db.insertInto('jobs').values(copies(n, row));
    }, 2);
    const select = precompiledSized((db, n) =>
      db.selectFrom('jobs').select('payload').where('queue', 'in', copies(n, '')).orderBy('id'),
    );
    const jobs = (queue: string, n: number) => Array.from({ length: n }, (_, i) => [queue, null, `${queue}-${i}`, i, null, null, null, 0]).flat();
    await insert(storage.db, 1, jobs('a', 1));
    await insert(storage.db, 3, jobs('b', 3));
    await insert(storage.db, 3, jobs('c', 3));
    expect(builds).toBe(2);
    await insert(storage.db, 2, jobs('d', 2)); // a third size: the least recently used (1) goes
    await insert(storage.db, 1, jobs('e', 1));
    expect(builds).toBe(4);
    expect((await select(storage.db, 2, ['b', 'e'])).map((r) => r.payload)).toEqual(['b-0', 'b-1', 'b-2', 'e-0']);
    expect((await select(storage.db, 1, ['d'])).map((r) => r.payload)).toEqual(['d-0', 'd-1']);
    await expect(insert(storage.db, 2, jobs('f', 1))).rejects.toThrow(/expects 16 parameters, got 8/);
  });
});

describe.each(ENGINES)('one-row inserts that answer the new id on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let tenantId: number;
  beforeEach(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, new FakeClock()));
    tenantId = (await storage.db.insertInto('tenants').values({ name: 't', edition: 'flagship', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
  });
  afterEach(async () => cleanup());

  // [tenant_id, name, created_at]; a name the tenant has already inserts nothing.
  const insertGroup = precompiledInsertId((db) =>
    db
      .insertInto('skill_groups')
      .values({ tenant_id: 0, name: '', created_at: 0 })
      .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing()),
  );
  const idOf = async (name: string) =>
    (await storage.db.selectFrom('skill_groups').select('id').where('tenant_id', '=', tenantId).where('name', '=', name).executeTakeFirstOrThrow()).id;

  it('answers the id of the row it inserted, and none when a conflict inserted nothing', async () => {
    const first = await insertGroup(storage.db, [tenantId, 'first', 0]);
    const second = await insertGroup(storage.db, [tenantId, 'second', 0]);
    expect(first).toBe(await idOf('first'));
    expect(second).toBe(await idOf('second'));
    expect(await insertGroup(storage.db, [tenantId, 'first', 0])).toBeUndefined();
    await expect(insertGroup(storage.db, [tenantId, 'third'])).rejects.toThrow(/expects 3 parameters, got 2/);
  });

  it.runIf(engine === 'sqlite')('runs the insert without RETURNING on the direct runner, with the same answers', async () => {
    const ran: string[] = [];
    const direct = directRunnerOf(storage.db)!;
    const counting: DirectRunner = Object.assign((sql: string, params: readonly unknown[]) => direct(sql, params), {
      run: (sql: string, params: readonly unknown[]) => {
        ran.push(sql);
        return direct.run!(sql, params);
      },
    });
    const answers = await storage.db.transaction().execute(async (trx) => {
      runDirectly(trx, counting);
      const a = await insertGroup(trx, [tenantId, 'a', 0]);
      const b = await insertGroup(trx, [tenantId, 'b', 0]);
      // After an insert, a conflicting one must not answer that insert's rowid.
      const again = await insertGroup(trx, [tenantId, 'a', 0]);
      return { a, b, again };
    });
    expect(ran).toHaveLength(3);
    for (const sql of ran) expect(sql.toLowerCase()).not.toContain('returning');
    expect(answers).toEqual({ a: await idOf('a'), b: await idOf('b'), again: undefined });
  });
});
