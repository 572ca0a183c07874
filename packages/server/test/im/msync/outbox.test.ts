/**
 * The per-connection outbox, pure: a queue not being pulled asks for one NOTICE; a message that
 * arrives during a pull waits for the next answer of that pull (the SDK drops NOTICEs then); a
 * pull ends with an isLast that carries no metas, only when nothing is left; the UNREAD answer
 * lists held queues; only a pull carrying the batch's `nextKey` acknowledges it; the bounds (count
 * and bytes) report an overflow; stored messages have a window of their own.
 */
import { describe, expect, it } from 'vitest';
import { Outbox, PULL_BATCH, STORED_WINDOW } from '../../../src/modules/im/msync/outbox.js';

const ben = { name: 'ben', domain: 'easemob.com' };
const room = { name: '42', domain: 'conference.easemob.com' };
const meta = (id: number, bytes = 10) => ({ id: String(id), timestamp: id, ns: 1, payload: new Uint8Array(bytes) });
const big = { count: 10_000, bytes: 100 * 1024 * 1024 };
const ids = (down: { metas?: Array<{ id: string }> }) => down.metas?.map((m) => m.id);

describe('msync outbox', () => {
  it('one NOTICE per pull, later arrivals go out on the cursor pull, then isLast', () => {
    const box = new Outbox(big);
    expect(box.add(ben, meta(1), true)).toBe('notice');
    expect(box.add(ben, meta(2), true)).toBe('queued');
    const first = box.pull(ben).down;
    expect(ids(first)).toEqual(['1', '2']);
    expect(first.isLast).toBe(false);
    // Arrives during the pull: no NOTICE, it leaves on the cursor pull.
    expect(box.add(ben, meta(3), true)).toBe('queued');
    const second = box.pull(ben, first.nextKey);
    expect(ids(second.down)).toEqual(['3']);
    expect(second.acked.map((h) => h.meta.id)).toEqual(['1', '2']);
    expect(second.down.nextKey).not.toBe(first.nextKey);
    const last = box.pull(ben, second.down.nextKey);
    expect(last.down).toMatchObject({ isLast: true });
    expect(last.acked.map((h) => h.meta.id)).toEqual(['3']);
    expect(box.size).toBe(0);
    // Pull over: the next message gets a NOTICE again.
    expect(box.add(ben, meta(4), true)).toBe('notice');
  });

  it('a pull without the batch key, or with another, hands the batch out again', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true);
    box.add(ben, meta(2), true);
    const first = box.pull(ben).down;
    const again = box.pull(ben);
    expect(again.acked).toEqual([]);
    expect(ids(again.down)).toEqual(['1', '2']);
    const wrong = box.pull(ben, 'not-the-key');
    expect(wrong.acked).toEqual([]);
    expect(ids(wrong.down)).toEqual(['1', '2']);
    expect(wrong.down.nextKey).not.toBe(first.nextKey);
    expect(box.size).toBe(2);
    expect(box.pull(ben, wrong.down.nextKey).acked).toHaveLength(2);
  });

  it('two crossing pulls of one queue (the SDK pulls it again while its pull is under way) both end, each batch acknowledged once', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true);
    const a = box.pull(ben).down; // pull A
    box.add(ben, meta(2), true);
    const b = box.pull(ben).down; // pull B, before A's answer came back: batch 1 is handed out again
    expect(ids(b)).toEqual(['1', '2']);
    // A goes on with its key, one batch behind: it acknowledges what it took, and ends.
    const aNext = box.pull(ben, a.nextKey);
    expect(aNext.acked.map((h) => h.meta.id)).toEqual(['1']);
    expect(aNext.down).toMatchObject({ isLast: true });
    expect(aNext.down.metas).toBeUndefined();
    // A message arriving now waits for B's next pull (no NOTICE: B is still pulling).
    expect(box.add(ben, meta(3), true)).toBe('queued');
    const bNext = box.pull(ben, b.nextKey);
    expect(bNext.acked.map((h) => h.meta.id)).toEqual(['2']);
    expect(ids(bNext.down)).toEqual(['3']);
    const bLast = box.pull(ben, bNext.down.nextKey);
    expect(bLast.acked.map((h) => h.meta.id)).toEqual(['3']);
    expect(bLast.down).toMatchObject({ isLast: true });
    expect(box.size).toBe(0);
    expect(box.add(ben, meta(4), true)).toBe('notice');
  });

  it('crossing pulls that keep pulling with keys one batch behind still come to an end', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true);
    let a = box.pull(ben).down;
    let b = box.pull(ben).down;
    const handedOut: string[][] = [];
    for (let turn = 0; turn < 10 && !(a.isLast && b.isLast); turn++) {
      if (!a.isLast) a = box.pull(ben, a.nextKey).down;
      if (!b.isLast) b = box.pull(ben, b.nextKey).down;
      handedOut.push([...(ids(a) ?? []), ...(ids(b) ?? [])]);
    }
    expect(a.isLast && b.isLast).toBe(true);
    expect(handedOut.length).toBeLessThanOrEqual(2);
    expect(box.size).toBe(0);
  });

  it('a long queue is pulled in batches with a fresh nextKey each time', () => {
    const box = new Outbox(big);
    for (let i = 0; i < PULL_BATCH + 3; i++) box.add(ben, meta(i), true);
    const a = box.pull(ben).down;
    expect(a.metas).toHaveLength(PULL_BATCH);
    expect(a.isLast).toBe(false);
    expect(box.add(ben, meta(999), true)).toBe('queued');
    const b = box.pull(ben, a.nextKey).down;
    expect(b.nextKey).not.toBe(a.nextKey);
    expect(ids(b)?.slice(-1)).toEqual(['999']);
    expect(box.pull(ben, b.nextKey).down).toMatchObject({ isLast: true });
    expect(box.size).toBe(0);
  });

  it('held messages are listed by UNREAD per queue, without NOTICE', () => {
    const box = new Outbox(big);
    expect(box.add(ben, meta(1), false)).toBe('queued');
    box.add(room, meta(2), false);
    expect(box.unread()).toEqual([
      { queue: ben, n: 1 },
      { queue: room, n: 1 },
    ]);
    // Listed, so being pulled: a new arrival waits for that pull.
    expect(box.add(ben, meta(3), true)).toBe('queued');
  });

  it('the same message twice is held once, also once handed out; past the count it overflows', () => {
    const box = new Outbox({ count: 2, bytes: 1024 * 1024 });
    box.add(ben, meta(1), true);
    box.add(ben, meta(1), true);
    expect(box.size).toBe(1);
    box.pull(ben);
    expect(box.add(ben, meta(1), true)).toBe('queued');
    expect(box.size).toBe(1);
    box.add(ben, meta(2), true);
    expect(box.add(ben, meta(3), true)).toBe('overflow');
  });

  it('bytes are bounded as well as the count, handed-out ones included until acknowledged', () => {
    const box = new Outbox({ count: 2_000, bytes: 10_000 });
    for (let i = 1; i <= 4; i++) expect(box.add(ben, meta(i, 2_000), true)).not.toBe('overflow');
    expect(box.add(ben, meta(5, 2_000), true)).toBe('overflow');
    const first = box.pull(ben).down;
    expect(box.add(ben, meta(5, 2_000), true)).toBe('overflow');
    box.pull(ben, first.nextKey);
    expect(box.bytes).toBe(0);
    expect(box.add(ben, meta(5, 2_000), true)).toBe('notice');
  });

  it('stored messages have a window: the drain may add what is left of it', () => {
    const box = new Outbox(big);
    expect(box.roomForStored()).toBe(STORED_WINDOW);
    for (let i = 1; i <= STORED_WINDOW; i++) box.add(ben, meta(i), false, 'stored');
    box.add(ben, meta(10_000), false, 'live');
    expect(box.roomForStored()).toBe(0);
    const first = box.pull(ben).down;
    expect(box.roomForStored()).toBe(0);
    box.pull(ben, first.nextKey);
    expect(box.roomForStored()).toBe(PULL_BATCH);
    // Half the byte bound taken: no room, whatever the count.
    const full = new Outbox({ count: 2_000, bytes: 1_000 });
    full.add(ben, meta(1, 600), true);
    expect(full.roomForStored()).toBe(0);
  });

  it('on close, gives back the live messages the client did not acknowledge; stored and chat-room ones stay out', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true);
    box.add(ben, meta(2), true, 'stored');
    box.add(room, meta(3), true, 'room');
    box.pull(ben); // 1 and 2 handed out, not acknowledged yet
    box.add(ben, meta(4), true);
    expect(box.takeUnacknowledged().sort()).toEqual(['1', '4']);
    expect(box.size).toBe(0);

    box.add(ben, meta(5), true);
    const down = box.pull(ben).down;
    box.pull(ben, down.nextKey); // the cursor pull acknowledges 5
    expect(box.takeUnacknowledged()).toEqual([]);
  });

  it('a stored copy of a message held live is acknowledged as stored', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true, 'live');
    expect(box.add(ben, meta(1), true, 'stored')).toBe('queued');
    const down = box.pull(ben).down;
    expect(box.pull(ben, down.nextKey).acked.map((h) => h.origin)).toEqual(['stored']);
  });

  it('a kept event is handed out once; a pull without its key sets it aside, and a later pull with that key acknowledges it', () => {
    const box = new Outbox(big);
    box.add(ben, meta(1), true, 'kept', 'k1');
    const first = box.pull(ben).down;
    expect(ids(first)).toEqual(['1']);
    // The SDK pulls the queue again without the key (a NOTICE and an UNREAD answer named it): not handed again.
    const again = box.pull(ben);
    expect(again.down).toMatchObject({ isLast: true });
    expect(again.acked).toEqual([]);
    expect(box.size).toBe(0);
    // Then its cursor pull with the first batch's key: acknowledged.
    expect(box.pull(ben, first.nextKey).acked.map((h) => [h.origin, h.ref])).toEqual([['kept', 'k1']]);
    // Once only; and closing forgets what was set aside (it stays kept in the store).
    expect(box.pull(ben, first.nextKey).acked).toEqual([]);
    box.add(ben, meta(2), true, 'kept', 'k2');
    const handed = box.pull(ben).down;
    box.pull(ben);
    expect(box.takeUnacknowledged()).toEqual([]);
    expect(box.pull(ben, handed.nextKey).acked).toEqual([]);
  });
});
