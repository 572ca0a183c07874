/**
 * Who gets a conversation (modules/channel/assignment.ts): the choice among a queue's agents, the
 * claim at open under the agent's lock, and the dispatcher's hand-out of waiting conversations.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelEvent } from '@parley/protocol';
import { chooseAgent, claimAgent, Dispatcher } from '../../src/modules/channel/assignment.js';
import type { ChannelEventBus } from '../../src/modules/channel/events.js';
import type { UnitOfWork } from '../../src/kernel/unit-of-work.js';
import type { AgentClaims, AgentLoad, AssignmentTransaction, ConversationsRepository, RoutingDirectory } from '../../src/modules/channel/ports.js';
import type { ChannelTransaction } from '../../src/modules/channel/transaction.js';
import { FakeClock } from '../helpers/clock.js';

describe('choosing an agent', () => {
  it('takes the least-loaded agent with room, the lowest id on a tie', () => {
    expect(chooseAgent([{ id: 5, max: 3, load: 2 }, { id: 7, max: 3, load: 1 }, { id: 6, max: 3, load: 1 }])).toBe(6);
  });

  it('skips agents at their max, and answers undefined when nobody has room', () => {
    expect(chooseAgent([{ id: 1, max: 1, load: 1 }, { id: 2, max: 4, load: 3 }])).toBe(2);
    expect(chooseAgent([{ id: 1, max: 1, load: 1 }, { id: 2, max: 0, load: 0 }])).toBeUndefined();
    expect(chooseAgent([])).toBeUndefined();
  });
});

describe('claiming an agent at open', () => {
  /** Loads per call of agentLoads, and what the lock then finds per agent. */
  function claims(loads: AgentLoad[][], locked: Record<number, AgentLoad | undefined>) {
    const calls: string[] = [];
    const port: AgentClaims = {
      agentLoads: async () => (calls.push('loads'), loads.shift() ?? []),
      lockAgent: async (id) => (calls.push(`lock ${id}`), locked[id]),
    };
    return { port, calls };
  }

  it('claims the chosen agent when its room holds under the lock', async () => {
    const c = claims([[{ id: 1, max: 2, load: 0 }]], { 1: { id: 1, max: 2, load: 1 } });
    expect(await claimAgent(c.port, 10)).toBe(1);
    expect(c.calls).toEqual(['loads', 'lock 1']);
  });

  it('chooses again when another claim filled the agent, up to three tries', async () => {
    const full = { id: 1, max: 1, load: 1 };
    const retried = claims([[{ id: 1, max: 1, load: 0 }], [{ id: 2, max: 1, load: 0 }]], { 1: full, 2: { id: 2, max: 1, load: 0 } });
    expect(await claimAgent(retried.port, 10)).toBe(2);
    expect(retried.calls).toEqual(['loads', 'lock 1', 'loads', 'lock 2']);

    const always = claims([[{ id: 1, max: 1, load: 0 }], [{ id: 1, max: 1, load: 0 }], [{ id: 1, max: 1, load: 0 }], [{ id: 1, max: 1, load: 0 }]], { 1: full });
    expect(await claimAgent(always.port, 10)).toBeUndefined();
    expect(always.calls).toEqual(['loads', 'lock 1', 'loads', 'lock 1', 'loads', 'lock 1']);
  });

  it('locks nobody when no agent has room, and treats a vanished agent as full', async () => {
    const none = claims([[{ id: 1, max: 1, load: 1 }]], {});
    expect(await claimAgent(none.port, 10)).toBeUndefined();
    expect(none.calls).toEqual(['loads']);

    const gone = claims([[{ id: 1, max: 1, load: 0 }]], { 1: undefined });
    expect(await claimAgent(gone.port, 10)).toBeUndefined();
  });
});

/** A unit of work whose transactions hold these assignment steps. */
const inAssignment = (assignment: AssignmentTransaction) =>
  ({ run: (work) => work({ channel: { assignment } } as unknown as ChannelTransaction) }) as UnitOfWork<ChannelTransaction>;

describe('the dispatcher', () => {
  it('hands each waiting head to the chosen agent while both last, under the agent’s lock', async () => {
    const waiting = [101, 102, 103];
    const agents = new Map<number, AgentLoad>([
      [1, { id: 1, max: 1, load: 0 }],
      [2, { id: 2, max: 2, load: 1 }],
    ]);
    const moves: unknown[] = [];
    const repo = {
      nextWaiting: async () => waiting[0],
      agentLoads: async () => [...agents.values()].map((a) => ({ ...a })),
    } as Partial<ConversationsRepository> as ConversationsRepository;
    const uow = inAssignment({
      agentLoads: async () => [],
      lockAgent: async (id) => agents.get(id),
      move: async (id, from, to, now) => {
        moves.push([id, from, to, now]);
        waiting.shift();
        (agents.get(to.agentId as number) as AgentLoad).load++;
        return true;
      },
    });
    const events: ChannelEvent[] = [];
    const bus = { publish: (e: ChannelEvent) => events.push(e) } as unknown as ChannelEventBus;
    const clock = new FakeClock(9_000);
    await new Dispatcher(repo, uow, {} as RoutingDirectory, bus, clock).dispatchQueues(1, [10, 10]);

    // Agent 1 (load 0) first; then agent 1 is full and agent 2 has room for one more.
    expect(moves).toEqual([
      [101, ['waiting'], { state: 'processing', agentId: 1 }, 9_000],
      [102, ['waiting'], { state: 'processing', agentId: 2 }, 9_000],
    ]);
    expect(waiting).toEqual([103]);
    expect(events).toEqual([
      { type: 'assignment', tenantId: 1, conversationId: 101, queueId: 10, agentId: 1, state: 'processing' },
      { type: 'assignment', tenantId: 1, conversationId: 102, queueId: 10, agentId: 2, state: 'processing' },
    ]);
  });

  it('moves nothing when the lock finds the agent full (another instance filled it)', async () => {
    let asked = 0;
    const repo = {
      nextWaiting: async () => (asked++ < 1 ? 101 : undefined),
      agentLoads: async () => [{ id: 1, max: 1, load: 0 }],
    } as Partial<ConversationsRepository> as ConversationsRepository;
    const uow = inAssignment({ agentLoads: async () => [], lockAgent: async () => ({ id: 1, max: 1, load: 1 }), move: async () => expect.unreachable() });
    const events: ChannelEvent[] = [];
    const bus = { publish: (e: ChannelEvent) => events.push(e) } as unknown as ChannelEventBus;
    await new Dispatcher(repo, uow, {} as RoutingDirectory, bus, new FakeClock()).dispatchQueues(1, [10]);
    expect(events).toEqual([]);
  });
});
