/**
 * The per-connection outbox, pure: a queue not being pulled asks for one NOTICE; a message that
 * arrives during a pull waits for the next answer of that pull (the SDK drops NOTICEs then); a
 * pull ends with an isLast that carries no metas, only when nothing is left; the UNREAD answer lists held queues; the bound
 * reports an overflow.
 */
import { describe, expect, it } from 'vitest';
import { Outbox, PULL_BATCH } from '../../../src/modules/im/msync/outbox.js';

const ben = { name: 'ben', domain: 'easemob.com' };
const meta = (id: number) => ({ id: String(id), timestamp: id, ns: 1 });

describe('msync outbox', () => {
  it('one NOTICE per pull, later arrivals go out on the cursor pull, then isLast', () => {
    const box = new Outbox(100);
    expect(box.add(ben, meta(1), true)).toBe('notice');
    expect(box.add(ben, meta(2), true)).toBe('queued');
    const first = box.pull(ben);
    expect(first.metas?.map((m) => m.id)).toEqual(['1', '2']);
    expect(first.isLast).toBe(false);
    // Arrives during the pull: no NOTICE, it leaves on the cursor pull.
    expect(box.add(ben, meta(3), true)).toBe('queued');
    const second = box.pull(ben);
    expect(second.metas?.map((m) => m.id)).toEqual(['3']);
    expect(second.nextKey).not.toBe(first.nextKey);
    expect(box.pull(ben)).toMatchObject({ isLast: true });
    // Pull over: the next message gets a NOTICE again.
    expect(box.add(ben, meta(4), true)).toBe('notice');
  });

  it('a long queue is pulled in batches with a fresh nextKey each time', () => {
    const box = new Outbox(1000);
    for (let i = 0; i < PULL_BATCH + 3; i++) box.add(ben, meta(i), true);
    const a = box.pull(ben);
    expect(a.metas).toHaveLength(PULL_BATCH);
    expect(a.isLast).toBe(false);
    expect(box.add(ben, meta(999), true)).toBe('queued');
    const b = box.pull(ben);
    expect(b.nextKey).not.toBe(a.nextKey);
    expect(b.metas?.map((m) => m.id).slice(-1)).toEqual(['999']);
    expect(box.pull(ben)).toMatchObject({ isLast: true });
    expect(box.size).toBe(0);
  });

  it('held messages are listed by UNREAD per queue, without NOTICE', () => {
    const box = new Outbox(100);
    expect(box.add(ben, meta(1), false)).toBe('queued');
    box.add({ name: '42', domain: 'conference.easemob.com' }, meta(2), false);
    expect(box.unread()).toEqual([
      { queue: ben, n: 1 },
      { queue: { name: '42', domain: 'conference.easemob.com' }, n: 1 },
    ]);
    // Listed, so being pulled: a new arrival waits for that pull.
    expect(box.add(ben, meta(3), true)).toBe('queued');
  });

  it('the same message twice is held once; past the limit it overflows', () => {
    const box = new Outbox(2);
    box.add(ben, meta(1), true);
    box.add(ben, meta(1), true);
    expect(box.size).toBe(1);
    box.add(ben, meta(2), true);
    expect(box.add(ben, meta(3), true)).toBe('overflow');
  });

  it('on close, hands back what the client did not acknowledge, chat-room messages excepted', () => {
    const box = new Outbox(100);
    const room = { name: '42', domain: 'conference.easemob.com' };
    box.add(ben, meta(1), true);
    box.add(ben, meta(2), true);
    box.add(room, meta(3), true, false);
    box.pull(ben); // 1 and 2 handed out, not acknowledged yet
    box.add(ben, meta(4), true);
    expect(box.takeUnacknowledged().sort()).toEqual(['1', '2', '4']);
    expect(box.size).toBe(0);

    box.add(ben, meta(5), true);
    box.pull(ben);
    box.pull(ben); // the cursor pull acknowledges 5
    expect(box.takeUnacknowledged()).toEqual([]);
  });
});
