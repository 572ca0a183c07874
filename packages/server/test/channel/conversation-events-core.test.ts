import { describe, expect, it } from 'vitest';
import { buildEventPush, estimatedWaitSeconds, positionNoticeDue } from '../../src/modules/channel/conversation-events.js';
import { isBehind } from '../../src/modules/channel/integrator-events.js';
import { typingDue, TYPING_INTERVAL_MS } from '../../src/modules/channel/typing.js';

describe('conversation event core', () => {
  it('builds the contract 6.4 body: base fields, then the event\'s own', () => {
    const conv = { id: 9, tenantId: 2, channelId: 3, customerId: 'c-1' };
    expect(buildEventPush(conv, { name: 'closed', fields: { by: 'system', reason: 'idle_timeout' } }, 1000)).toEqual({
      event: 'closed', to: 'c-1', tenant_id: 2, channel_id: 3, conversation_id: 9, timestamp: 1000, by: 'system', reason: 'idle_timeout',
    });
  });

  it('estimates the wait from the mean handling time spread over the online agents, null when unknown', () => {
    expect(estimatedWaitSeconds(1, null, 2)).toBeNull();
    expect(estimatedWaitSeconds(1, 60_000, 0)).toBeNull();
    expect(estimatedWaitSeconds(3, 60_000, 2)).toBe(90);
  });

  it('orders the line VIP first, then by queue time, then id', () => {
    const pivot = { id: 5, vip: false, queuedAt: 100 };
    expect(isBehind({ id: 6, vip: false, queuedAt: 100 }, pivot)).toBe(true);
    expect(isBehind({ id: 4, vip: false, queuedAt: 100 }, pivot)).toBe(false);
    expect(isBehind({ id: 1, vip: false, queuedAt: 200 }, pivot)).toBe(true);
    expect(isBehind({ id: 9, vip: true, queuedAt: 900 }, pivot)).toBe(false);
    expect(isBehind({ id: 1, vip: false, queuedAt: 1 }, { id: 9, vip: true, queuedAt: 900 })).toBe(true);
  });

  it('tells the first ten places every move, and further back once per block of ten places crossed', () => {
    const movedUp = (after: number) => positionNoticeDue(after + 1, after);
    const told = Array.from({ length: 100 }, (_, i) => i + 1).filter(movedUp);
    expect(told).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    // Moved back by a VIP: 10 → 11 and 20 → 21 leave their block, 14 → 15 does not.
    expect(positionNoticeDue(10, 11)).toBe(true);
    expect(positionNoticeDue(20, 21)).toBe(true);
    expect(positionNoticeDue(14, 15)).toBe(false);
    expect(positionNoticeDue(3, 4)).toBe(true);
    expect(positionNoticeDue(7, 7)).toBe(false);
  });

  it('lets one typing signal through per interval', () => {
    expect(typingDue(undefined, 0)).toBe(true);
    expect(typingDue(1000, 1000 + TYPING_INTERVAL_MS - 1)).toBe(false);
    expect(typingDue(1000, 1000 + TYPING_INTERVAL_MS)).toBe(true);
  });
});
