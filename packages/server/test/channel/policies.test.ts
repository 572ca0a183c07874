import { describe, expect, it } from 'vitest';
import { nextPushAttempt, PUSH_SCHEDULE_MS, RETRY_AFTER_MAX_MS } from '../../src/modules/channel/retry-policy.js';
import { buildReplyPush } from '../../src/modules/channel/reply-body.js';
import { resolveRoute } from '../../src/modules/channel/routing.js';
import type { RoutingDirectory } from '../../src/modules/channel/ports.js';

describe('push retry policy (contract 3.4)', () => {
  it('follows the default schedule 5 s, 30 s, 2 min, ... 12 h and gives up after ten attempts', () => {
    const delays = Array.from({ length: 9 }, (_, i) => nextPushAttempt(i + 1, undefined, 0.5));
    expect(delays).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000].map((delayMs) => ({ action: 'retry', delayMs })));
    expect(nextPushAttempt(PUSH_SCHEDULE_MS.length, undefined, 0.5)).toEqual({ action: 'give_up' });
  });

  it('adds at most ±20 % jitter', () => {
    expect(nextPushAttempt(1, undefined, 0)).toEqual({ action: 'retry', delayMs: 4_000 });
    expect(nextPushAttempt(1, undefined, 0.999999)).toEqual({ action: 'retry', delayMs: 6_000 });
  });

  it('honours Retry-After when it asks for more, within 1 s .. 1 h', () => {
    expect(nextPushAttempt(1, 120_000, 0.5)).toEqual({ action: 'retry', delayMs: 120_000 });
    expect(nextPushAttempt(3, 1_000, 0.5)).toEqual({ action: 'retry', delayMs: 120_000 });
    expect(nextPushAttempt(1, 10 * 24 * 3600 * 1000, 0.5)).toEqual({ action: 'retry', delayMs: RETRY_AFTER_MAX_MS });
  });
});

describe('routing order (contract 3.2)', () => {
  const directory: RoutingDirectory = {
    agentByUsername: async (_t, username) =>
      username === 'lily@example.com' ? { id: 9, tenantId: 1, username, nickname: 'Lily', avatar: null, role: 'agent', status: 'offline', maxSessions: 1 } : undefined,
    agent: async () => undefined,
    queueByName: async (_t, name) => (name === 'sales' ? { id: 20, tenantId: 1, name } : undefined),
    queue: async (_t, id) => (id === 30 ? { id, tenantId: 1, name: 'thirty' } : undefined),
    queueIdsOfAgent: async () => [],
  };
  const tenant = { id: 1, defaultQueueId: 1 };

  it.each([
    [{ agent_username: 'Lily@Example.com', queue_name: 'sales' }, 5, { queueId: 20, agentId: 9, rule: 'agent_username' }],
    [{ queue_name: 'sales', queue_id: '30' }, 5, { queueId: 20, agentId: null, rule: 'queue_name' }],
    [{ queue_name: 'nope', queue_id: '30' }, 5, { queueId: 30, agentId: null, rule: 'queue_id' }],
    [{ queue_id: '31', agent_username: 'ghost@example.com' }, 5, { queueId: 5, agentId: null, rule: 'association' }],
    [{}, null, { queueId: 1, agentId: null, rule: 'tenant' }],
  ])('%j with association queue %s -> %j', async (hints, associationQueue, expected) => {
    expect(await resolveRoute(directory, tenant, associationQueue, hints)).toEqual(expected);
  });
});

describe('reply push body (spec 2.3)', () => {
  it('carries every field, null for unknown visitor fields', () => {
    const push = buildReplyPush({
      tenantId: 1024,
      channelId: 7,
      msgId: 'm1',
      bodies: [{ type: 'txt', msg: '您好' }],
      customerId: 'c42',
      visitor: { profile: { user_nickname: 'Wang' }, tags: [] },
      agent: { username: 'a@example.com', nickname: 'A', avatar: null },
      queue: undefined,
    });
    expect(push).toEqual({
      bodies: [{ type: 'txt', msg: '您好' }],
      ext: {
        msg_id: 'm1',
        visitor: { user_nickname: 'Wang', true_name: null, qq: null, email: null, phone: null, company_name: null, description: null, weixin: null, tags: null, callback_user: 'c42' },
        agent: { avatar: null, user_nickname: 'A' },
        queue_id: null,
        queue_name: '',
        agent_username: 'a@example.com',
      },
      to: 'c42',
      channel_type: 'rest',
      tenant_id: 1024,
      origin_type: 'rest',
      channel_id: 7,
    });
  });
});
