/**
 * The list's order by msg_id (modules/im/conversations.ts): ids compare as numbers (the longer
 * decimal is the larger), whatever their length, and a cursor with leading zeros pages as its value.
 */
import { describe, expect, it } from 'vitest';
import { laterMsgId, visiblePage, type ConversationRef } from '../../src/modules/im/conversations.js';

const chat = (peer: string, lastMsgId: string): ConversationRef & { lastMsgId: string } => ({ kind: 'chat', peer, lastMsgId });

describe('conversation order', () => {
  it('compares msg_ids as numbers, not as text', () => {
    expect(laterMsgId('10', '9')).toBe(true);
    expect(laterMsgId('9', '10')).toBe(false);
    expect(laterMsgId('1234567890123456789', '999999999999999999')).toBe(true);
    expect(laterMsgId('123', '124')).toBe(false);
    expect(laterMsgId('7', '7')).toBe(false);
    expect(laterMsgId('1', '0')).toBe(true);
  });

  it('sorts ids of different lengths latest first and pages after a cursor with leading zeros', () => {
    const latest = [chat('a', '9'), chat('b', '100'), chat('c', '11'), chat('d', '1000')];
    expect(visiblePage(latest, new Map(), undefined, 10).page.map((c) => c.peer)).toEqual(['d', 'b', 'c', 'a']);
    expect(visiblePage(latest, new Map(), '00100', 10).page.map((c) => c.peer)).toEqual(['c', 'a']);
    expect(visiblePage(latest, new Map(), undefined, 2)).toEqual({ page: [chat('d', '1000'), chat('b', '100')], more: true });
  });
});
