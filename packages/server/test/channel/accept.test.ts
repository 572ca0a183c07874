/**
 * The decision sequence of a customer message (modules/channel/accept.ts), over a recording fake
 * of its transaction's arrival steps: which steps run, in which order, with what. One path,
 * whatever storage answers the arrival from.
 */
import { describe, expect, it } from 'vitest';
import type { UnitOfWork } from '../../src/kernel/unit-of-work.js';
import { CustomerMessageAcceptor, type ResolveRoute } from '../../src/modules/channel/accept.js';
import type { Arrival, ArrivalTransaction, IncomingMessage, NewConversation } from '../../src/modules/channel/arrival-store.js';
import type { AgentLoad, Conversation, RoutingDirectory, TenantInfo, VisitorProfile } from '../../src/modules/channel/ports.js';
import type { ChannelTransaction } from '../../src/modules/channel/transaction.js';

const NOW = 5_000;

const conversationOf = (over: Partial<Conversation> = {}): Conversation => ({
  id: 7,
  tenantId: 1,
  channelId: 2,
  visitorId: 3,
  customerId: 'c',
  state: 'waiting',
  queueId: 10,
  agentId: null,
  vip: false,
  queuedAt: 1_000,
  createdAt: 1_000,
  updatedAt: 1_000,
  closedAt: null,
  ...over,
});

const message = (over: Partial<IncomingMessage> = {}): IncomingMessage => ({
  tenantId: 1,
  channelId: 2,
  customerId: 'c',
  msgId: 'm1',
  bodies: [{ type: 'txt', msg: 'hi' }],
  ext: {},
  timestamp: NOW,
  profile: {},
  tags: undefined,
  associationQueueId: null,
  hints: {},
  now: NOW,
  ...over,
});

interface World {
  tenant?: TenantInfo | undefined;
  arrival?: Arrival;
  /** appendMessage answers undefined: the msg_id was taken (an arrival answered from memory). */
  appendFindsDuplicate?: boolean;
  loads?: AgentLoad[];
  /** lockAgent's answer per try (undefined: as in `loads`). */
  locks?: Array<AgentLoad | undefined>;
}

/** A fake transaction that records each step as [name, ...arguments], run by a fake unit of work. */
function fakeStore(world: World) {
  const steps: unknown[][] = [];
  const locks = [...(world.locks ?? [])];
  const tx: ArrivalTransaction = {
    directory: {} as RoutingDirectory,
    tenant: async (id) => (steps.push(['tenant', id]), 'tenant' in world ? world.tenant : { id, edition: 'flagship', defaultQueueId: 10, vipTags: ['gold'] }),
    arrival: async (input) => (steps.push(['arrival', input.msgId]), world.arrival ?? { seenConversationId: null, visitor: undefined, open: undefined }),
    duplicateOf: async (input) => (steps.push(['duplicateOf', input.msgId]), conversationOf({ id: 5 })),
    insertVisitor: async (input, tags) => (steps.push(['insertVisitor', input.profile, tags]), 3),
    updateVisitor: async (id, profile, tags) => void steps.push(['updateVisitor', id, profile, tags]),
    openConversation: async (row: NewConversation) => (
      steps.push(['openConversation', row]),
      conversationOf({ id: 8, state: row.state, agentId: row.agentId, queueId: row.queueId, vip: row.vip })
    ),
    appendMessage: async (conversationId, _input, vip) => (
      steps.push(['appendMessage', conversationId, vip]), world.appendFindsDuplicate ? undefined : conversationOf({ id: conversationId, updatedAt: NOW })
    ),
    agentLoads: async (queueId) => (steps.push(['agentLoads', queueId]), world.loads ?? []),
    lockAgent: async (agentId) => {
      steps.push(['lockAgent', agentId]);
      return locks.length > 0 ? locks.shift() : world.loads?.find((a) => a.id === agentId);
    },
  };
  const transaction = { channel: { arrivals: tx } } as unknown as ChannelTransaction;
  const store = {
    run: (work) => work(transaction),
    groupCommit: (write) => ({ submit: async (item) => (await write(transaction, [item], 1))[0] }),
  } as UnitOfWork<ChannelTransaction>;
  return { store, steps, names: () => steps.map((s) => s[0]) };
}

const toQueue: ResolveRoute = async () => ({ queueId: 10, agentId: null, rule: 'tenant' });

describe('accepting a customer message', () => {
  it('refuses an unknown tenant and a standard one before anything else is read', async () => {
    const cases: Array<[TenantInfo | undefined, string]> = [
      [undefined, 'not_found'],
      [{ id: 1, edition: 'standard', defaultQueueId: 10, vipTags: [] }, 'edition_not_supported'],
    ];
    for (const [tenant, code] of cases) {
      const f = fakeStore({ tenant });
      await expect(new CustomerMessageAcceptor(f.store, toQueue).accept(message())).rejects.toMatchObject({ code });
      expect(f.names()).toEqual(['tenant']);
    }
  });

  it('sets the VIP flag when the tenant’s VIP tags changed it', async () => {
    const f = fakeStore({ arrival: { seenConversationId: null, visitor: { id: 3, profile: {}, tags: ['gold'] }, open: conversationOf({ vip: false }) } });
    await new CustomerMessageAcceptor(f.store, toQueue).accept(message());
    expect(f.steps).toContainEqual(['appendMessage', 7, true]);
  });

  it('answers a duplicate msg_id with the conversation it went to, and writes nothing', async () => {
    const f = fakeStore({ arrival: { seenConversationId: 5, visitor: undefined, open: undefined } });
    const accepted = await new CustomerMessageAcceptor(f.store, toQueue).accept(message());
    expect(f.names()).toEqual(['tenant', 'arrival', 'duplicateOf']);
    expect(accepted).toMatchObject({ duplicate: true, opened: false, conversation: { id: 5 } });
  });

  it('answers a duplicate the append found (an arrival answered from memory) the same way', async () => {
    const f = fakeStore({ appendFindsDuplicate: true, arrival: { seenConversationId: null, visitor: { id: 3, profile: {}, tags: [] }, open: conversationOf() } });
    const accepted = await new CustomerMessageAcceptor(f.store, toQueue).accept(message());
    expect(f.names()).toEqual(['tenant', 'arrival', 'appendMessage', 'duplicateOf']);
    expect(accepted).toMatchObject({ duplicate: true, opened: false, conversation: { id: 5 } });
  });

  it('opens a conversation for a new customer: visitor, route, claim, open, append', async () => {
    const routes: unknown[] = [];
    const route: ResolveRoute = async (directory, tenant, associationQueueId, hints) => {
      routes.push([tenant.id, associationQueueId, hints]);
      return { queueId: 11, agentId: null, rule: 'queue_name' };
    };
    const f = fakeStore({ loads: [{ id: 4, max: 2, load: 1 }] });
    const accepted = await new CustomerMessageAcceptor(f.store, route).accept(
      message({ profile: { user_nickname: 'Li' }, tags: ['gold'], associationQueueId: 12, hints: { queue_name: 'sales' } }),
    );
    expect(f.names()).toEqual(['tenant', 'arrival', 'insertVisitor', 'agentLoads', 'lockAgent', 'openConversation', 'appendMessage']);
    expect(routes).toEqual([[1, 12, { queue_name: 'sales' }]]);
    expect(f.steps).toContainEqual(['insertVisitor', { user_nickname: 'Li' }, ['gold']]);
    expect(f.steps).toContainEqual([
      'openConversation',
      { tenantId: 1, channelId: 2, visitorId: 3, customerId: 'c', state: 'processing', queueId: 11, agentId: 4, vip: true, now: NOW },
    ]);
    expect(f.steps).toContainEqual(['appendMessage', 8, undefined]);
    expect(accepted).toMatchObject({ duplicate: false, opened: true, conversation: { id: 8 } });
  });

  it('gives a conversation to a named agent without a claim, and leaves it waiting when nobody has room', async () => {
    const named = fakeStore({});
    await new CustomerMessageAcceptor(named.store, async () => ({ queueId: 10, agentId: 9, rule: 'agent_username' })).accept(message());
    expect(named.names()).not.toContain('agentLoads');
    expect(named.steps).toContainEqual(['openConversation', expect.objectContaining({ state: 'processing', agentId: 9 })]);

    const full = fakeStore({ loads: [{ id: 4, max: 1, load: 1 }] });
    await new CustomerMessageAcceptor(full.store, toQueue).accept(message());
    expect(full.steps).toContainEqual(['openConversation', expect.objectContaining({ state: 'waiting', agentId: null })]);
  });

  it('merges a returning visitor’s profile, keeps their tags unless given, and writes only a change', async () => {
    const visitor = { id: 3, profile: { user_nickname: 'Li', phone: '1' } as VisitorProfile, tags: ['a'] };
    const changed = fakeStore({ arrival: { seenConversationId: null, visitor, open: conversationOf() } });
    await new CustomerMessageAcceptor(changed.store, toQueue).accept(message({ profile: { phone: '2', email: 'e' } }));
    expect(changed.steps).toContainEqual(['updateVisitor', 3, { user_nickname: 'Li', phone: '2', email: 'e' }, ['a']]);
    expect(changed.names()).not.toContain('openConversation');

    const same = fakeStore({ arrival: { seenConversationId: null, visitor, open: conversationOf() } });
    await new CustomerMessageAcceptor(same.store, toQueue).accept(message({ profile: { phone: '1' }, tags: ['a'] }));
    expect(same.names()).toEqual(['tenant', 'arrival', 'appendMessage']);
  });
});
