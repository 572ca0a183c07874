/** Statements compiled once per size: the right rows for every size, wrong arity refused, shapes bounded. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copies, precompiledSized } from '../../src/storage/precompiled.js';
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
