/**
 * The batching primitive's policies, over fake work functions: when a batch starts (next turn),
 * its size and weight, how many run at once, and what a failed batch means ('reject-all',
 * 'retry-each'); and its three ways in (submit, join, push).
 */
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/kernel/batcher.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A run function whose batches the test ends by hand; each item's value is the item itself. */
function manualRun<I, O = I>() {
  const started: Array<{ items: I[]; end: (error?: Error) => void }> = [];
  const run = (items: I[]) =>
    new Promise<O[]>((resolve, reject) => {
      started.push({ items, end: (error) => (error ? reject(error) : resolve(items as unknown as O[])) });
    });
  return { started, run };
}

describe('Batcher: when a batch starts and what it holds', () => {
  it('starts the items of one turn together on the next turn, and settles each with its own value', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>({ run: async (items) => (runs.push(items), items.map((n) => n * 10)) });
    const answers = [batcher.submit(1), batcher.submit(2), batcher.submit(3)];
    expect(runs).toEqual([]);
    await nextTurn();
    expect(runs).toEqual([[1, 2, 3]]);
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('gathers what arrives while a batch runs into the next one, started a turn after it ended', async () => {
    const { started, run } = manualRun<string>();
    const batcher = new Batcher<string, string>({ run });
    const a = batcher.submit('a');
    await nextTurn();
    const b = batcher.submit('b');
    const c = batcher.submit('c');
    await nextTurn();
    expect(started.map((s) => s.items)).toEqual([['a']]);
    started[0]!.end();
    expect(await a).toBe('a');
    expect(started).toHaveLength(1);
    await nextTurn();
    expect(started.map((s) => s.items)).toEqual([['a'], ['b', 'c']]);
    started[1]!.end();
    expect(await Promise.all([b, c])).toEqual(['b', 'c']);
  });

  it('holds at most maxBatch items; the rest go in the next batch', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number>({ run: async (items) => void runs.push(items), maxBatch: 2, concurrency: 3 });
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('weighs items: a batch holds at most maxBatch of weight, and a first item always fits', async () => {
    const runs: string[][] = [];
    const batcher = new Batcher<string>({ run: async (items) => void runs.push(items), maxBatch: 4, weight: (s) => s.length });
    await Promise.all(['ab', 'cd', 'e', 'fghijk', 'l'].map((s) => batcher.submit(s)));
    expect(runs).toEqual([['ab', 'cd'], ['e'], ['fghijk'], ['l']]);
  });

  it('runs at most `concurrency` batches at once, all started on the same turn', async () => {
    const { started, run } = manualRun<number, void>();
    const batcher = new Batcher<number>({ run, maxBatch: 1, concurrency: 2 });
    const all = [1, 2, 3].map((n) => batcher.submit(n));
    await nextTurn();
    expect(started.map((s) => s.items)).toEqual([[1], [2]]);
    started[0]!.end();
    await nextTurn();
    await nextTurn();
    expect(started.map((s) => s.items)).toEqual([[1], [2], [3]]);
    started[1]!.end();
    started[2]!.end();
    await Promise.all(all);
  });

  it('takes its start from `schedule` when given', async () => {
    const waiting: Array<() => void> = [];
    const runs: number[][] = [];
    const batcher = new Batcher<number>({ run: (items) => void runs.push(items), schedule: (start) => waiting.push(start) });
    batcher.push(1);
    batcher.push(2);
    expect(waiting).toHaveLength(1);
    await nextTurn();
    expect(runs).toEqual([]);
    waiting[0]!();
    expect(runs).toEqual([[1, 2]]);
  });
});

describe('Batcher: failure policies', () => {
  it("'reject-all': every item of a failed batch fails with its error, and the next batch runs", async () => {
    let fail = true;
    const runs: string[][] = [];
    const batcher = new Batcher<string>({
      run: async (items) => {
        runs.push(items);
        if (fail) throw new Error('batch failed');
      },
      failure: 'reject-all',
    });
    const results = await Promise.allSettled(['a', 'b'].map((s) => batcher.submit(s)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('batch failed'));
    fail = false;
    await batcher.submit('c');
    expect(runs).toEqual([['a', 'b'], ['c']]);
  });

  it("'retry-each': after a failed batch each item runs alone; only the bad one fails, with its own error", async () => {
    const runs: string[][] = [];
    const batcher = new Batcher<string, string>({
      run: async (items) => {
        runs.push(items);
        const bad = items.find((s) => s.startsWith('bad'));
        if (bad) throw new Error(`bad item ${bad}`);
        return items.map((s) => s.toUpperCase());
      },
      failure: 'retry-each',
    });
    const results = await Promise.allSettled(['a', 'bad1', 'b'].map((s) => batcher.submit(s)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('bad item bad1') },
      { status: 'fulfilled', value: 'B' },
    ]);
    expect(runs).toEqual([['a', 'bad1', 'b'], ['a'], ['bad1'], ['b']]);
  });

  it("'retry-each': a batch of one that fails is not run again", async () => {
    let runs = 0;
    const batcher = new Batcher<string>({
      run: async () => {
        runs++;
        throw new Error('no');
      },
      failure: 'retry-each',
    });
    await expect(batcher.submit('x')).rejects.toThrow('no');
    expect(runs).toBe(1);
  });

  it("'retry-each': the retries hold the batch's slot; what arrived meanwhile runs after them", async () => {
    const runs: string[][] = [];
    let late: Promise<void> | undefined;
    const batcher = new Batcher<string>({
      run: async (items) => {
        runs.push(items);
        if (items.length > 1) {
          late ??= batcher.submit('late');
          throw new Error('batch failed');
        }
      },
      failure: 'retry-each',
    });
    await Promise.all([batcher.submit('a'), batcher.submit('b')]);
    await late;
    expect(runs).toEqual([['a', 'b'], ['a'], ['b'], ['late']]);
  });
});

describe('Batcher: join (one promise per batch) and push (none)', () => {
  it('join: the items joined before their batch was taken share one promise, settled after the run', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number>({ run: async (items) => void runs.push(items), concurrency: Infinity });
    const first = batcher.join(1);
    expect(batcher.join(2)).toBe(first);
    await first;
    expect(runs).toEqual([[1, 2]]);
    const second = batcher.join(3);
    expect(second).not.toBe(first);
    await second;
    expect(runs).toEqual([[1, 2], [3]]);
  });

  it('join: a failed batch rejects the shared promise', async () => {
    const batcher = new Batcher<number>({
      run: async () => {
        throw new Error('delete failed');
      },
    });
    const shared = batcher.join(1);
    batcher.join(2);
    await expect(shared).rejects.toThrow('delete failed');
  });

  it('join: when the joined items span several batches, the promise waits for the last of them', async () => {
    const { started, run } = manualRun<number, void>();
    const batcher = new Batcher<number>({ run, maxBatch: 1, concurrency: 2 });
    let settled = false;
    const shared = batcher.join(1).then(() => (settled = true));
    batcher.join(2);
    await nextTurn();
    started[0]!.end();
    await nextTurn();
    expect(settled).toBe(false);
    started[1]!.end();
    await shared;
    expect(settled).toBe(true);
  });

  it('push: hands over the items of one turn together, at the start of the next', async () => {
    const handed: number[][] = [];
    const batch = new Batcher<number>({ run: (items) => void handed.push(items) });
    batch.push(1);
    batch.push(2);
    batch.push(3);
    expect(handed).toEqual([]);
    await nextTurn();
    expect(handed).toEqual([[1, 2, 3]]);
    batch.push(4);
    await nextTurn();
    expect(handed).toEqual([[1, 2, 3], [4]]);
  });

  it('push: flushes at once on demand, and the scheduled turn then hands over nothing', async () => {
    const handed: string[][] = [];
    const batch = new Batcher<string>({ run: (items) => void handed.push(items) });
    batch.push('a');
    batch.flush();
    expect(handed).toEqual([['a']]);
    await nextTurn();
    expect(handed).toEqual([['a']]);
    batch.flush();
    expect(handed).toEqual([['a']]);
  });

  it('push: a failed hand-over goes to onError (there is no promise to reject)', async () => {
    const errors: unknown[] = [];
    const batch = new Batcher<string>({
      run: () => {
        throw new Error('worker gone');
      },
      onError: (error) => errors.push(error),
    });
    batch.push('a');
    batch.push('b');
    await nextTurn();
    expect(errors).toEqual([new Error('worker gone')]);
  });
});
