/**
 * The decision sequence of a customer message (modules/channel/accept.ts), over a recording fake
 * of the ArrivalStore port: which steps run, in which order, with what.
 */
import { describe, expect, it } from 'vitest';
import { CustomerMessageAcceptor, type ResolveRoute } from '../../src/modules/channel/accept.js';
import type { Arrival, ArrivalStore, ArrivalTransaction, IncomingMessage, KnownArrival, NewConversation } from '../../src/modules/channel/arrival-store.js';
import type { AgentLoad, Conversation, RoutingDirectory, TenantInfo, VisitorProfile } from '../../src/modules/channel/ports.js';

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
  remembers?: boolean;
  known?: KnownArrival;
  /** insertMessageIfNew's answer on the known path (undefined: the msg_id was seen). */
  knownInsert?: number | undefined;
  arrival?: Arrival;
  loads?: AgentLoad[];
  /** lockAgent's answer per try (undefined: as in `loads`). */
  locks?: Array<AgentLoad | undefined>;
}

/** A fake transaction that records each step as [name, ...arguments]. */
function fakeStore(world: World) {
  const steps: unknown[][] = [];
  const locks = [...(world.locks ?? [])];
  const tx: ArrivalTransaction = {
    directory: {} as RoutingDirectory,
    remembers: world.remembers ?? true,
    tenant: (id) => (steps.push(['tenant', id]), 'tenant' in world ? world.tenant : { id, edition: 'flagship', defaultQueueId: 10, vipTags: ['gold'] }),
    knownArrival: async (channelId, customerId) => (steps.push(['knownArrival', channelId, customerId]), world.known),
    remember: (channelId, customerId, arrival) => void steps.push(['remember', channelId, customerId, arrival]),
    arrival: async (input) => (steps.push(['arrival', input.msgId]), world.arrival ?? { seenConversationId: null, visitor: undefined, open: undefined }),
    conversation: async (id) => (steps.push(['conversation', id]), conversationOf({ id })),
    insertVisitor: async (input, tags) => (steps.push(['insertVisitor', input.profile, tags]), 3),
    updateVisitor: async (id, profile, tags) => void steps.push(['updateVisitor', id, profile, tags]),
    openConversation: async (row: NewConversation) => (
      steps.push(['openConversation', row]),
      conversationOf({ id: 8, state: row.state, agentId: row.agentId, queueId: row.queueId, vip: row.vip })
    ),
    appendMessage: async (conversationId, _input, vip) => (steps.push(['appendMessage', conversationId, vip]), conversationOf({ id: conversationId, updatedAt: NOW })),
    insertMessageIfNew: async (conversationId) => (steps.push(['insertMessageIfNew', conversationId]), world.knownInsert),
    touchConversation: async (conversationId, messageId, now) => steps.push(['touchConversation', conversationId, messageId, now]),
    agentLoads: async (queueId) => (steps.push(['agentLoads', queueId]), world.loads ?? []),
    lockAgent: async (agentId) => {
      steps.push(['lockAgent', agentId]);
      return locks.length > 0 ? locks.shift() : world.loads?.find((a) => a.id === agentId);
    },
  };
  const store: ArrivalStore = { inBatches: (step) => (input) => step(tx, input) };
  return { store, steps, names: () => steps.map((s) => s[0]) };
}

const toQueue: ResolveRoute = async () => ({ queueId: 10, agentId: null, rule: 'tenant' });
const known = (over: { profile?: VisitorProfile; tags?: string[]; vip?: boolean } = {}): KnownArrival => ({
  profile: over.profile ?? { user_nickname: 'Li' },
  tags: over.tags ?? [],
  conversation: conversationOf({ vip: over.vip ?? false }),
});

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

  it('takes a known customer’s unchanged message in one insert and one update, remembering the same entry', async () => {
    const entry = known();
    const f = fakeStore({ known: entry, knownInsert: 42 });
    const accepted = await new CustomerMessageAcceptor(f.store, toQueue).accept(message({ profile: { user_nickname: 'Li' } }));
    expect(f.steps).toEqual([
      ['tenant', 1],
      ['knownArrival', 2, 'c'],
      ['insertMessageIfNew', 7],
      ['touchConversation', 7, 42, NOW],
      ['remember', 2, 'c', entry],
    ]);
    expect(accepted).toEqual({ duplicate: false, msgId: 'm1', opened: false, conversation: { ...entry.conversation, updatedAt: NOW } });
  });

  it.each([
    ['the msg_id was seen before', { knownInsert: undefined }, message()],
    ['the profile changes', { knownInsert: 42 }, message({ profile: { user_nickname: 'Lei' } })],
    ['the tags change', { knownInsert: 42 }, message({ tags: ['x'] })],
  ])('leaves the known path when %s', async (_what, world, input) => {
    const f = fakeStore({ known: known(), ...world, arrival: { seenConversationId: null, visitor: { id: 3, profile: { user_nickname: 'Li' }, tags: [] }, open: conversationOf() } });
    await new CustomerMessageAcceptor(f.store, toQueue).accept(input);
    expect(f.names()).toContain('arrival');
    expect(f.names().at(-2)).toBe('appendMessage');
  });

  it('leaves the known path when the tenant’s VIP tags changed the flag, and sets it', async () => {
    const f = fakeStore({ known: known({ tags: ['gold'], vip: false }), knownInsert: 42, arrival: { seenConversationId: null, visitor: { id: 3, profile: {}, tags: ['gold'] }, open: conversationOf({ vip: false }) } });
    await new CustomerMessageAcceptor(f.store, toQueue).accept(message());
    expect(f.names()).not.toContain('insertMessageIfNew');
    expect(f.steps).toContainEqual(['appendMessage', 7, true]);
  });

  it('answers a duplicate msg_id with the conversation it went to, and writes nothing', async () => {
    const f = fakeStore({ remembers: false, arrival: { seenConversationId: 5, visitor: undefined, open: undefined } });
    const accepted = await new CustomerMessageAcceptor(f.store, toQueue).accept(message());
    expect(f.names()).toEqual(['tenant', 'arrival', 'conversation']);
    expect(accepted).toMatchObject({ duplicate: true, opened: false, conversation: { id: 5 } });
  });

  it('opens a conversation for a new customer: visitor, route, claim, open, append, remember', async () => {
    const routes: unknown[] = [];
    const route: ResolveRoute = async (directory, tenant, associationQueueId, hints) => {
      routes.push([tenant.id, associationQueueId, hints]);
      return { queueId: 11, agentId: null, rule: 'queue_name' };
    };
    const f = fakeStore({ loads: [{ id: 4, max: 2, load: 1 }] });
    const accepted = await new CustomerMessageAcceptor(f.store, route).accept(
      message({ profile: { user_nickname: 'Li' }, tags: ['gold'], associationQueueId: 12, hints: { queue_name: 'sales' } }),
    );
    expect(f.names()).toEqual(['tenant', 'knownArrival', 'arrival', 'insertVisitor', 'agentLoads', 'lockAgent', 'openConversation', 'appendMessage', 'remember']);
    expect(routes).toEqual([[1, 12, { queue_name: 'sales' }]]);
    expect(f.steps).toContainEqual(['insertVisitor', { user_nickname: 'Li' }, ['gold']]);
    expect(f.steps).toContainEqual([
      'openConversation',
      { tenantId: 1, channelId: 2, visitorId: 3, customerId: 'c', state: 'processing', queueId: 11, agentId: 4, vip: true, now: NOW },
    ]);
    expect(f.steps).toContainEqual(['appendMessage', 8, undefined]);
    expect(f.steps.at(-1)).toEqual(['remember', 2, 'c', { profile: { user_nickname: 'Li' }, tags: ['gold'], conversation: accepted.conversation }]);
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
    const changed = fakeStore({ remembers: false, arrival: { seenConversationId: null, visitor, open: conversationOf() } });
    await new CustomerMessageAcceptor(changed.store, toQueue).accept(message({ profile: { phone: '2', email: 'e' } }));
    expect(changed.steps).toContainEqual(['updateVisitor', 3, { user_nickname: 'Li', phone: '2', email: 'e' }, ['a']]);
    expect(changed.names()).not.toContain('openConversation');

    const same = fakeStore({ remembers: false, arrival: { seenConversationId: null, visitor, open: conversationOf() } });
    await new CustomerMessageAcceptor(same.store, toQueue).accept(message({ profile: { phone: '1' }, tags: ['a'] }));
    expect(same.names()).toEqual(['tenant', 'arrival', 'appendMessage']);
  });
});
