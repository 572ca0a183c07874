/**
 * The history roaming request as the SDK sends it, read without a database (modules/im/history.ts):
 * the queue names the conversation, the cursor is a msg_id or nothing, the page is bounded, the
 * window never reaches past the retention period.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { queueTarget, roamingCursor, roamingQuery, ROAMING_MAX_PAGE } from '../../src/modules/im/history.js';

const DAY = 24 * 3_600_000;
const NOW = 1_800_000_000_000;

describe('history roaming request', () => {
  it('reads the queue as a peer (folded) or a group', () => {
    expect(queueTarget('Ben@easemob.com')).toEqual({ kind: 'chat', id: 'ben' });
    expect(queueTarget('123@conference.easemob.com')).toEqual({ kind: 'group', id: '123' });
    for (const bad of ['ben', '@easemob.com', 'ben@example.com', '']) expect(() => queueTarget(bad)).toThrow(AppError);
  });

  it('takes -1, "" or nothing as the start and a msg_id as a cursor; anything else does not decode', () => {
    for (const start of [-1, '-1', '', null, undefined]) expect(roamingCursor(start)).toBeUndefined();
    expect(roamingCursor('1767225600000001')).toBe('1767225600000001');
    expect(roamingCursor(42)).toBe('42');
    for (const bad of ['x1', '1.5', '-2', '12345678901234567890', 'MTIz']) {
      expect(() => roamingCursor(bad)).toThrow(expect.objectContaining({ code: 'illegal_argument' }));
    }
  });

  it('builds the query: direction, bounded page, types, sender, and a window inside the retention', () => {
    const q = roamingQuery('app', 'ann', { queue: '7@conference.easemob.com', start: '99', pull_number: 500, is_positive: true, msgType: 'txt,img', userId: 'Ben', startTime: 5, endTime: NOW }, NOW, 180 * DAY);
    expect(q).toEqual({
      appId: 'app',
      conversation: { kind: 'group', groupId: '7', sender: 'ben' },
      direction: 'down',
      cursor: '99',
      limit: ROAMING_MAX_PAGE,
      types: ['txt', 'img'],
      since: NOW - 180 * DAY,
      until: NOW,
    });
    const plain = roamingQuery('app', 'ann', { queue: 'ben@easemob.com', start: -1, msgType: '', startTime: null, endTime: null, userId: null }, NOW, DAY);
    expect(plain).toEqual({ appId: 'app', conversation: { kind: 'chat', me: 'ann', peer: 'ben' }, direction: 'up', limit: 20, since: NOW - DAY });
    expect(() => roamingQuery('app', 'ann', { queue: 'ben@easemob.com', msgType: 'txt,html' }, NOW, DAY)).toThrow(AppError);
  });
});
