/**
 * The unit of work on both engines (storage/unit-of-work.ts), with a transaction object of its own
 * (skill-group inserts): `run` commits all or nothing and reports a taken key as the domain's
 * Conflict; a group commit writes concurrent items in one transaction, runs each item alone when
 * the batch fails, and runs an item that meets a conflict again with a growing `attempt`, up to
 * CONFLICT_ATTEMPTS; what a transaction asked to run after its commit runs only when it committed;
 * on SQLite, precompiled statements of every transaction go straight to the driver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFLICT_ATTEMPTS, isConflict } from '../../src/kernel/unit-of-work.js';
import { directRunnerOf } from '../../src/storage/direct-statements.js';
import type { Storage } from '../../src/storage/index.js';
import { precompiled } from '../../src/storage/precompiled.js';
import { KyselyUnitOfWork, type TransactionContext } from '../../src/storage/unit-of-work.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage, ENGINES } from '../helpers/engines.js';

interface Tx {
  insert(name: string): Promise<number>;
  afterCommit(action: () => void): void;
}

describe.each(ENGINES)('the unit of work on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let tenantId: number;
  let transactions = 0;
  let uow: KyselyUnitOfWork<Tx>;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, new FakeClock()));
    const db = storage.db;
    tenantId = (await db.insertInto('tenants').values({ name: 't', edition: 'flagship', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
    const original = db.transaction.bind(db);
    (db as { transaction: typeof db.transaction }).transaction = () => {
      transactions++;
      return original();
    };
    uow = new KyselyUnitOfWork<Tx>(db, storage.capabilities, (ctx: TransactionContext) => ({
      insert: async (name) => (await ctx.trx.insertInto('skill_groups').values({ tenant_id: tenantId, name, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id,
      afterCommit: (action) => ctx.afterCommit(action),
    }));
  });
  afterAll(async () => cleanup?.());

  const names = async () => (await storage.db.selectFrom('skill_groups').select('name').where('tenant_id', '=', tenantId).orderBy('name').execute()).map((r) => r.name);

  it('run commits all of its work or none, and reports a taken key as a Conflict', async () => {
    const after: string[] = [];
    await uow.run(async (tx) => {
      await tx.insert('r1');
      await tx.insert('r2');
      tx.afterCommit(() => after.push('committed'));
    });
    await expect(
      uow.run(async (tx) => {
        await tx.insert('r3');
        tx.afterCommit(() => after.push('not committed'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const taken = await uow.run((tx) => tx.insert('r1')).catch((error: unknown) => error);
    expect(isConflict(taken, 'unique')).toBe(true);
    expect(await names()).toEqual(['r1', 'r2']);
    expect(after).toEqual(['committed']);
  });

  it('a group commit writes concurrent items in one transaction and settles each with its value', async () => {
    const writer = uow.groupCommit<string, number>(async (tx, items) => Promise.all(items.map((n) => tx.insert(n))));
    transactions = 0;
    const ids = await Promise.all(['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => writer.submit(n)));
    expect(new Set(ids).size).toBe(5);
    expect(transactions).toBe(1);
  });

  it('when a batch fails, writes each item alone: a bad one fails, a conflicting one is tried CONFLICT_ATTEMPTS times, the others commit', async () => {
    const attempts = new Map<string, number[]>();
    const writer = uow.groupCommit<string, number>(async (tx, items, attempt) => {
      const out: number[] = [];
      for (const name of items) {
        attempts.set(name, [...(attempts.get(name) ?? []), attempt]);
        if (name === 'bad') throw new Error('a bad item');
        out.push(await tx.insert(name));
      }
      return out;
    });
    const results = await Promise.allSettled(['b1', 'bad', 'b2', 'a1' /* taken */, 'b3'].map((n) => writer.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(isConflict((results[3] as PromiseRejectedResult).reason, 'unique')).toBe(true);
    expect(attempts.get('bad')).toEqual([1, 1]);
    // The batch stopped at 'bad' before it reached 'a1'; alone, 'a1' met the taken key each time.
    expect(attempts.get('a1')).toEqual(Array.from({ length: CONFLICT_ATTEMPTS }, (_, i) => i + 1));
    expect((await names()).filter((n) => n.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
  });

  it('a write that conflicts takes fresh values on its next attempt and commits', async () => {
    const writer = uow.groupCommit<string, string>(async (tx, items, attempt) => {
      const out: string[] = [];
      // Attempts 1 and 2 take names already taken; the third takes a fresh one.
      for (const item of items) {
        const name = attempt < 3 ? 'r2' : `${item}-${attempt}`;
        await tx.insert(name);
        out.push(name);
      }
      return out;
    });
    expect(await writer.submit('fresh')).toBe('fresh-3');
  });
});

describe('the unit of work on sqlite: direct statements', () => {
  it('runs the precompiled statements of every transaction on the driver; they commit and roll back with it', async () => {
    const { storage, cleanup } = await createTestStorage('sqlite', new FakeClock());
    try {
      const tenantId = (await storage.db.insertInto('tenants').values({ name: 't', edition: 'flagship', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
      const insert = precompiled((db) => db.insertInto('skill_groups').values({ tenant_id: 0, name: '', created_at: 0 }).returning('id'));
      const direct = directRunnerOf(storage.db)!;
      let ran = 0;
      const counting = Object.assign((sql: string, params: readonly unknown[]) => (ran++, direct(sql, params)), { run: direct.run });
      // The runner the unit of work attaches is the database's: counted here.
      const { attachDirectRunner } = await import('../../src/storage/direct-statements.js');
      attachDirectRunner(storage.db, counting);
      const uow = new KyselyUnitOfWork(storage.db, storage.capabilities, (ctx) => ctx.trx);
      await uow.run(async (trx) => insert(trx, [tenantId, 'd1', 0]));
      await uow.run(async (trx) => (await insert(trx, [tenantId, 'd2', 0]), Promise.reject(new Error('rolled back')))).catch(() => undefined);
      expect(ran).toBe(2);
      const before = ran;
      // Outside a transaction the same statement goes through Kysely (nothing holds the connection).
      await insert(storage.db, [tenantId, 'outside', 0]);
      expect(ran).toBe(before);
      const names = (await storage.db.selectFrom('skill_groups').select('name').where('tenant_id', '=', tenantId).orderBy('name').execute()).map((r) => r.name);
      expect(names).toEqual(['d1', 'outside']);
    } finally {
      await cleanup();
    }
  });
});
