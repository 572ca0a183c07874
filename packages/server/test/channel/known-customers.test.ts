/**
 * Messages from customers whose open conversation is already known. On SQLite the send-message
 * path keeps those conversations in memory (storage/sqlite/open-conversations.ts); whatever
 * else changes a conversation must be seen by the next message. On PostgreSQL every message reads
 * them: the same behaviour is asserted on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '@parley/protocol';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { conversation, createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('messages from known customers on %s', (engine) => {
  let t: TestApp;
  let root: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  let n = 0;
  async function world() {
    const tenant = await createTenant(t.app, root, `Known${++n}`);
    const billing = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing');
    const assoc: TestAssociation = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    return { ...tenant, billing, assoc };
  }

  /** The live events of a tenant from now on. */
  function listen(tenantId: number): ChannelEvent[] {
    const seen: ChannelEvent[] = [];
    const off = t.app.parley.channel.events.subscribe(tenantId, (event) => seen.push(event));
    afterCleanups.push(off);
    return seen;
  }
  const afterCleanups: Array<() => void> = [];
  afterAll(() => afterCleanups.forEach((off) => off()));

  it('opens a new conversation after an agent closed the known one', async () => {
    const w = await world();
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-close' });
    const second = await sendCustomerMessage(t.app, w.assoc, { from: 'k-close' });
    expect(second.conversation_id).toBe(first.conversation_id);
    expect((await call(t.app, w.adminToken, 'POST', `/api/tenants/${w.tenantId}/conversations/${first.conversation_id}/close`)).status).toBe(200);

    const third = await sendCustomerMessage(t.app, w.assoc, { from: 'k-close' });
    expect(third.conversation_id).not.toBe(first.conversation_id);
    expect(await conversation(t.app, w.adminToken, w.tenantId, third.conversation_id)).toMatchObject({ state: 'waiting' });
    const closed = await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations/${first.conversation_id}/messages`);
    expect(closed.body.entities).toHaveLength(2);
  });

  it('tells agents about the next message with the conversation as a transfer left it', async () => {
    const w = await world();
    const alice = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing] });
    const bob = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing] });
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-transfer', ext: { queue_name: 'billing' } });
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-transfer' });
    const base = `/api/tenants/${w.tenantId}/conversations/${first.conversation_id}`;
    expect((await call(t.app, alice.token, 'POST', `${base}/accept`)).status).toBe(200);
    expect((await call(t.app, alice.token, 'POST', `${base}/transfer`, { agent_id: bob.id })).status).toBe(200);

    const events = listen(w.tenantId);
    const next = await sendCustomerMessage(t.app, w.assoc, { from: 'k-transfer', text: 'are you there?' });
    expect(next.conversation_id).toBe(first.conversation_id);
    expect(events.filter((e) => e.type === 'new_message')).toEqual([
      expect.objectContaining({ type: 'new_message', conversationId: first.conversation_id, agentId: bob.id, queueId: Number(w.billing), direction: 'customer' }),
    ]);
  });

  it('sees an agent removed underneath a known conversation', async () => {
    const w = await world();
    const agent = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing], online: true });
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-gone', ext: { queue_name: 'billing' } });
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-gone' });
    expect(await conversation(t.app, w.adminToken, w.tenantId, first.conversation_id)).toMatchObject({ agent: { id: agent.id } });
    // As another writer would (the conversation's agent_id is cleared by the foreign key).
    await t.app.parley.storage.db.deleteFrom('users').where('id', '=', agent.id).execute();

    const events = listen(w.tenantId);
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-gone' });
    expect(events.filter((e) => e.type === 'new_message')).toEqual([expect.objectContaining({ conversationId: first.conversation_id, agentId: null })]);
  });

  it('answers a reused msg_id of a known customer as a duplicate and stores it once', async () => {
    const w = await world();
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-dup', msg_id: 'k-dup-1' });
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-dup', msg_id: 'k-dup-2' });
    const again = await sendCustomerMessage(t.app, w.assoc, { from: 'k-dup', msg_id: 'k-dup-1', text: 'sent twice' });
    expect(again).toEqual({ msg_id: 'k-dup-1', conversation_id: first.conversation_id, duplicate: true });
    const history = await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations/${first.conversation_id}/messages`);
    expect(history.body.entities.map((m: { msg_id: string }) => m.msg_id)).toEqual(['k-dup-1', 'k-dup-2']);
  });

  it('applies a known customer’s profile and tags changes, and the VIP flag they imply', async () => {
    const w = await world();
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-profile', ext: { visitor: { user_nickname: 'Li' } } });
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-profile', ext: { visitor: { user_nickname: 'Li' } } });
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-profile', ext: { visitor: { user_nickname: 'Li Lei', tags: ['vip'] } } });
    const conv = await conversation(t.app, w.adminToken, w.tenantId, first.conversation_id);
    expect(conv.visitor).toMatchObject({ user_nickname: 'Li Lei', tags: ['vip'] });
    expect(conv.vip).toBe(true);
    // Unchanged profile again, after the change: stays as it is.
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-profile' });
    expect((await conversation(t.app, w.adminToken, w.tenantId, first.conversation_id)).visitor).toMatchObject({ user_nickname: 'Li Lei', tags: ['vip'] });
  });

  it('keeps the conversation’s last message and activity time current', async () => {
    const w = await world();
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'k-last', text: 'one' });
    const later = (t.clock as FakeClock).advance(60_000);
    await sendCustomerMessage(t.app, w.assoc, { from: 'k-last', text: 'two' });
    const conv = await conversation(t.app, w.adminToken, w.tenantId, first.conversation_id);
    expect(conv.lastMessage).toMatchObject({ direction: 'customer', bodies: [{ type: 'txt', msg: 'two' }] });
    const row = await t.app.parley.storage.db.selectFrom('conversations').select('updated_at').where('id', '=', first.conversation_id).executeTakeFirstOrThrow();
    expect(Number(row.updated_at)).toBe(later);
  });
});
