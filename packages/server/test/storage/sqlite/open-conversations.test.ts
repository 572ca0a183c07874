/**
 * The memory of known customers' open conversations (SQLite's send-message path): the pure rules
 * of OpenConversations, and the change-log triggers of migration 129 that make it safe.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CustomerMessageAcceptor } from '../../../src/modules/channel/accept.js';

import { openStorage, type Storage } from '../../../src/storage/index.js';
import { SqlJobQueue } from '../../../src/storage/jobs/sql-queue.js';
import { testUnitOfWork } from '../../helpers/unit-of-work.js';
import { OpenConversations, type KnownArrival } from '../../../src/storage/sqlite/open-conversations.js';
import { FakeClock } from '../../helpers/clock.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/engines.js';

const arrival = (conversationId: number): KnownArrival => ({
  profile: {},
  tags: [],
  conversation: {
    id: conversationId,
    tenantId: 1,
    channelId: 1,
    visitorId: 1,
    customerId: 'c',
    state: 'waiting',
    queueId: 1,
    agentId: null,
    vip: false,
    queuedAt: 0,
    createdAt: 0,
    updatedAt: 0,
    closedAt: null,
  },
});

describe('OpenConversations', () => {
  it('forgets the customers a change names, and only them', () => {
    const open = new OpenConversations();
    open.start(7);
    open.keep(new Map([['a', arrival(1)], ['b', arrival(2)]]), 7);
    open.forget([]);
    expect(open.get('a')?.conversation.id).toBe(1);
    open.forget([{ seq: 8, key: 'a' }]);
    expect(open.get('a')).toBeUndefined();
    expect(open.get('b')?.conversation.id).toBe(2);
    expect(open.size).toBe(1);
  });

  it('ignores what a transaction learnt of a customer changed since it read the changes, and keeps the others', () => {
    const open = new OpenConversations();
    open.start(1);
    open.forget([{ seq: 2, key: 'a' }]);
    open.keep(new Map([['a', arrival(1)], ['b', arrival(2)]]), 1);
    expect(open.get('a')).toBeUndefined();
    expect(open.get('b')?.conversation.id).toBe(2);
  });

  it('keeps nothing learnt before the first read of the changes', () => {
    const open = new OpenConversations();
    open.keep(new Map([['a', arrival(1)]]), 0);
    expect(open.get('a')).toBeUndefined();
  });

  it('replaces an entry with the newer one and lets the oldest go past its cap', () => {
    const open = new OpenConversations(2);
    open.start(0);
    open.keep(new Map([['a', arrival(1)], ['b', arrival(2)]]), 0);
    open.keep(new Map([['a', arrival(3)]]), 0);
    open.keep(new Map([['c', arrival(4)]]), 0);
    expect(open.size).toBe(2);
    expect(open.get('b')).toBeUndefined();
    expect(open.get('a')?.conversation.id).toBe(3);
    expect(open.get('c')?.conversation.id).toBe(4);
  });
});

describe('conversation change-log triggers (SQLite)', () => {
  let tdb: TestDatabase;
  let storage: Storage;

  beforeEach(async () => {
    tdb = await createTestDatabase('sqlite');
    storage = await openStorage(tdb.config, new FakeClock());
  });
  afterEach(async () => {
    await storage.close();
    await tdb.destroy();
  });

  /** The customers of the changes logged past `after`, in order. */
  const changes = async (after: number) =>
    (await sql<{ seq: number; channel_id: number; customer_id: string }>`SELECT seq, channel_id, customer_id FROM conversation_changes WHERE seq > ${after} ORDER BY seq`.execute(storage.db)).rows;
  const last = async () => Number((await sql<{ seq: number | null }>`SELECT MAX(seq) AS seq FROM conversation_changes`.execute(storage.db)).rows[0]?.seq ?? 0);

  it('logs the customer of every change to a conversation or a visitor but the per-message bookkeeping', async () => {
    const db = storage.db;
    const tenant = await db.insertInto('tenants').values({ name: 'T', edition: 'flagship', vip_tags: '["vip"]', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow();
    const agent = await db
      .insertInto('users')
      .values({ tenant_id: tenant.id, username: 'a@example.com', password_hash: 'x', nickname: 'A', avatar: null, role: 'agent', status: 'online', max_sessions: 5, created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const channel = await db
      .insertInto('rest_channels')
      .values({ tenant_id: tenant.id, name: 'c', callback_url: 'http://x.example/', client_id: 'cid', secret_sealed: 's', agent_queue_id: null, created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const visitor = await db
      .insertInto('channel_visitors')
      .values({ channel_id: channel.id, customer_id: 'c', profile: '{}', tags: '[]', created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const start = await last();
    const conv = await db
      .insertInto('conversations')
      .values({ tenant_id: tenant.id, channel_id: channel.id, visitor_id: visitor.id, customer_id: 'c', state: 'processing', queue_id: 1, agent_id: agent.id, vip: 0, queued_at: 0, created_at: 0, updated_at: 0, closed_at: null, last_message_id: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const logged = async () => (await changes(start)).map((r) => `${r.channel_id}/${r.customer_id}`);
    expect(await logged()).toEqual([]);

    await db.updateTable('conversations').set({ last_message_id: 5, updated_at: 10 }).where('id', '=', conv.id).execute();
    expect(await logged()).toEqual([]);
    const c = `${channel.id}/c`;
    await db.updateTable('conversations').set({ vip: 1 }).where('id', '=', conv.id).execute();
    expect(await logged()).toEqual([c]);
    await db.updateTable('channel_visitors').set({ profile: '{"phone":"1"}' }).where('id', '=', visitor.id).execute();
    expect(await logged()).toEqual([c, c]);
    // The foreign key clears agent_id: that is a change too.
    await db.deleteFrom('users').where('id', '=', agent.id).execute();
    expect(await logged()).toHaveLength(3);
    await db.updateTable('conversations').set({ state: 'closed', closed_at: 20 }).where('id', '=', conv.id).execute();
    expect(await logged()).toHaveLength(4);
    // A change of customer names both the old and the new one.
    await db.updateTable('conversations').set({ customer_id: 'd' }).where('id', '=', conv.id).execute();
    expect((await logged()).slice(4)).toEqual([c, `${channel.id}/d`]);
    await db.deleteFrom('conversations').where('id', '=', conv.id).execute();
    expect((await logged()).slice(6)).toEqual([`${channel.id}/d`]);
  });

  it("answers a known customer's messages with the time each touched the conversation, stores each as the last, and tells a reused msg_id", async () => {
    const db = storage.db;
    const tenant = await db.insertInto('tenants').values({ name: 'T', edition: 'flagship', vip_tags: '["vip"]', default_queue_id: null, created_at: 0 }).returning('id').executeTakeFirstOrThrow();
    const channel = await db
      .insertInto('rest_channels')
      .values({ tenant_id: tenant.id, name: 'c', callback_url: 'http://x.example/', client_id: 'cid', secret_sealed: 's', agent_queue_id: null, created_at: 0, updated_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    // The memory on, as the service runs SQLite: from the second message on, the customer is known.
    const jobs = new SqlJobQueue({ db, capabilities: storage.capabilities, clock: new FakeClock() });
    const memory = new OpenConversations();
    const { uow } = testUnitOfWork(storage, jobs, { openConversations: memory });
    const acceptor = new CustomerMessageAcceptor(uow, async () => ({ queueId: 1, agentId: null, rule: 'tenant' }));
    const message = (n: number, now: number) =>
      acceptor.accept({
        tenantId: tenant.id,
        channelId: channel.id,
        customerId: 'known',
        msgId: `m${n}`,
        bodies: [{ type: 'txt', msg: `hello ${n}` }],
        ext: {},
        timestamp: now,
        profile: {},
        tags: undefined,
        associationQueueId: null,
        hints: {},
        now,
      });

    const first = await message(1, 1_000);
    expect(first.opened).toBe(true);
    for (const [n, now] of [[2, 2_000], [3, 3_000]] as const) {
      const next = await message(n, now);
      expect(next).toMatchObject({ duplicate: false, opened: false, conversation: { id: first.conversation.id, updatedAt: now, createdAt: 1_000 } });
      const row = await db.selectFrom('conversations').select(['updated_at', 'last_message_id']).where('id', '=', first.conversation.id).executeTakeFirstOrThrow();
      const last = await db.selectFrom('channel_messages').select('id').where('msg_id', '=', `m${n}`).executeTakeFirstOrThrow();
      expect(row).toEqual({ updated_at: now, last_message_id: last.id });
    }
    // Another customer's conversation changes (an agent closes it): only that customer is forgotten.
    const from = (customerId: string, now: number) =>
      acceptor.accept({ tenantId: tenant.id, channelId: channel.id, customerId, msgId: `${customerId}-${now}`, bodies: [{ type: 'txt', msg: 'hi' }], ext: {}, timestamp: now, profile: {}, tags: undefined, associationQueueId: null, hints: {}, now });
    const other = await from('other', 3_500);
    const third = await from('third', 3_550);
    await message(4, 3_600);
    expect(memory.get(OpenConversations.key(channel.id, 'other'))).toBeDefined();
    await db.updateTable('conversations').set({ state: 'closed', closed_at: 3_700 }).where('id', '=', other.conversation.id).execute();
    await message(5, 3_800);
    expect(memory.get(OpenConversations.key(channel.id, 'other'))).toBeUndefined();
    expect(memory.get(OpenConversations.key(channel.id, 'third'))?.conversation.id).toBe(third.conversation.id);
    // A known customer's message whose msg_id was taken: the insert tells, nothing is stored twice.
    const again = await message(2, 4_000);
    expect(again).toMatchObject({ duplicate: true, opened: false, conversation: { id: first.conversation.id } });
    expect(await db.selectFrom('channel_messages').select('id').where('msg_id', '=', 'm2').execute()).toHaveLength(1);
  });
});
