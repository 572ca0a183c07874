import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../../src/modules/outbound/turn-batch.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TurnBatch', () => {
  it('hands over the items of one turn together, at the start of the next', async () => {
    const handed: number[][] = [];
    const batch = new TurnBatch<number>((items) => handed.push(items));
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

  it('flushes at once on demand, and the scheduled turn then hands over nothing', async () => {
    const handed: string[][] = [];
    const batch = new TurnBatch<string>((items) => handed.push(items));
    batch.push('a');
    batch.flush();
    expect(handed).toEqual([['a']]);
    await nextTurn();
    expect(handed).toEqual([['a']]);
    batch.flush();
    expect(handed).toEqual([['a']]);
  });
});
