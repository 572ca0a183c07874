import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { conversation, createAgent, createAssociation, createQueue, sendCustomerMessage, setStatus, type TestAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('routing, queues and conversations on %s', (engine) => {
  let t: TestApp;
  let root: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  let n = 0;
  /** A fresh tenant per test so queues and loads do not interfere. */
  async function world(options: { assocQueue?: 'sales' } = {}) {
    const tenant = await createTenant(t.app, root, `Route${++n}`);
    const sales = await createQueue(t.app, tenant.adminToken, tenant.tenantId, '售后');
    const vipq = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing');
    const assoc: TestAssociation = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', {
      ...(options.assocQueue ? { agent_queue_id: sales } : {}),
    });
    return { ...tenant, sales, billing: vipq, assoc };
  }
  const get = (w: { adminToken: string; tenantId: number }, id: number) => conversation(t.app, w.adminToken, w.tenantId, id);

  it('routes by agent_username first, even over a queue name', async () => {
    const w = await world();
    const agent = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing] });
    const sent = await sendCustomerMessage(t.app, w.assoc, { from: 'a1', ext: { agent_username: agent.username.toUpperCase(), queue_name: '售后' } });
    const c = await get(w, sent.conversation_id);
    expect(c).toMatchObject({ state: 'processing', agent: { id: agent.id }, queue_id: w.sales });
  });

  it('routes by queue_name, then queue_id, then association default, then tenant default', async () => {
    const w = await world({ assocQueue: 'sales' });
    const byName = await get(w, (await sendCustomerMessage(t.app, w.assoc, { from: 'q1', ext: { queue_name: 'billing', queue_id: w.sales } })).conversation_id);
    expect(byName).toMatchObject({ state: 'waiting', queue_id: w.billing, agent: null });
    const byId = await get(w, (await sendCustomerMessage(t.app, w.assoc, { from: 'q2', ext: { queue_name: 'nope', queue_id: w.billing } })).conversation_id);
    expect(byId.queue_id).toBe(w.billing);
    const byAssoc = await get(w, (await sendCustomerMessage(t.app, w.assoc, { from: 'q3', ext: { queue_id: '999999', agent_username: 'nobody@example.com' } })).conversation_id);
    expect(byAssoc.queue_id).toBe(w.sales);

    const plain = await createAssociation(t.app, w.adminToken, w.tenantId, 'http://127.0.0.1:9/hook2');
    const byTenant = await get(w, (await sendCustomerMessage(t.app, plain, { from: 'q4' })).conversation_id);
    expect(byTenant.queue_id).toBe(w.defaultQueueId);
  });

  it('puts VIP conversations (tenant-configured tags) ahead in the queue', async () => {
    const w = await world();
    expect((await call(t.app, w.adminToken, 'PUT', `/api/tenants/${w.tenantId}/settings`, { vip_tags: ['gold'] })).status).toBe(200);
    const first = await sendCustomerMessage(t.app, w.assoc, { from: 'v1', ext: { queue_name: '售后' } });
    const notVip = await sendCustomerMessage(t.app, w.assoc, { from: 'v2', ext: { queue_name: '售后', visitor: { tags: ['vip'] } } });
    const vip = await sendCustomerMessage(t.app, w.assoc, { from: 'v3', ext: { queue_name: '售后', visitor: { tags: ['gold'] } } });
    const list = await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations?state=waiting&queue_id=${w.sales}`);
    expect(list.body.entities.map((c: { id: number }) => c.id)).toEqual([vip.conversation_id, first.conversation_id, notVip.conversation_id]);
    expect(list.body.entities.map((c: { vip: boolean }) => c.vip)).toEqual([true, false, false]);

    // The head of the line goes to the first agent who comes online.
    const agent = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.sales], maxSessions: 1 });
    await setStatus(t.app, w.tenantId, agent, 'online');
    expect(await get(w, vip.conversation_id)).toMatchObject({ state: 'processing', agent: { id: agent.id } });
    expect((await get(w, first.conversation_id)).state).toBe('waiting');
  });

  it('moves a waiting conversation ahead when a later message carries a VIP tag, and back when the tags drop it', async () => {
    const w = await world();
    const waiting = async () =>
      (await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations?state=waiting&queue_id=${w.sales}`)).body.entities.map(
        (c: { id: number; vip: boolean }) => [c.id, c.vip],
      );
    const early = await sendCustomerMessage(t.app, w.assoc, { from: 'u1', ext: { queue_name: '售后' } });
    const late = await sendCustomerMessage(t.app, w.assoc, { from: 'u2', ext: { queue_name: '售后' } });
    expect(await waiting()).toEqual([[early.conversation_id, false], [late.conversation_id, false]]);
    // Same conversation, now with the tenant's VIP tag: it goes to the head of the line.
    const tagged = await sendCustomerMessage(t.app, w.assoc, { from: 'u2', ext: { visitor: { tags: ['vip'] } } });
    expect(tagged.conversation_id).toBe(late.conversation_id);
    expect(await waiting()).toEqual([[late.conversation_id, true], [early.conversation_id, false]]);
    // Without tags the stored ones still apply; an explicit empty list drops the VIP mark.
    await sendCustomerMessage(t.app, w.assoc, { from: 'u2' });
    expect(await waiting()).toEqual([[late.conversation_id, true], [early.conversation_id, false]]);
    await sendCustomerMessage(t.app, w.assoc, { from: 'u2', ext: { visitor: { tags: [] } } });
    expect(await waiting()).toEqual([[early.conversation_id, false], [late.conversation_id, false]]);
  });

  it('auto-assigns to the least-loaded online agent with free capacity, else the conversation waits', async () => {
    const w = await world();
    const a = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.sales], maxSessions: 2, online: true });
    const b = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.sales], maxSessions: 1, online: true });
    await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.sales], maxSessions: 5 }); // offline: never chosen
    const agents: number[] = [];
    for (const from of ['l1', 'l2', 'l3']) {
      const c = await get(w, (await sendCustomerMessage(t.app, w.assoc, { from, ext: { queue_name: '售后' } })).conversation_id);
      expect(c.state).toBe('processing');
      agents.push(c.agent.id);
    }
    expect(agents).toEqual([a.id, b.id, a.id]);
    const waiting = await get(w, (await sendCustomerMessage(t.app, w.assoc, { from: 'l4', ext: { queue_name: '售后' } })).conversation_id);
    expect(waiting).toMatchObject({ state: 'waiting', agent: null });

    // A later message from the same customer joins the open conversation.
    const again = await sendCustomerMessage(t.app, w.assoc, { from: 'l4', text: 'still there?' });
    expect(again.conversation_id).toBe(waiting.id);

    // Closing one of b's conversations frees a slot: the waiting one is handed to b.
    const mine = await call(t.app, b.token, 'GET', `/api/tenants/${w.tenantId}/conversations?mine=true&state=processing`);
    expect(mine.body.total).toBe(1);
    const closed = await call(t.app, b.token, 'POST', `/api/tenants/${w.tenantId}/conversations/${mine.body.entities[0].id}/close`);
    expect(closed.body.entity.state).toBe('closed');
    expect(await get(w, waiting.id)).toMatchObject({ state: 'processing', agent: { id: b.id } });
  });

  it('supports manual accept, transfer to an agent or a queue, and close', async () => {
    const w = await world();
    const alice = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing] });
    const bob = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.billing] });
    const sent = await sendCustomerMessage(t.app, w.assoc, { from: 'm1', ext: { queue_name: 'billing' } });
    const base = `/api/tenants/${w.tenantId}/conversations/${sent.conversation_id}`;

    // Bob may not close what is not his.
    expect((await call(t.app, bob.token, 'POST', `${base}/close`)).status).toBe(403);
    const accepted = await call(t.app, alice.token, 'POST', `${base}/accept`);
    expect(accepted.body.entity).toMatchObject({ state: 'processing', agent: { id: alice.id } });
    const taken = await call(t.app, bob.token, 'POST', `${base}/accept`);
    expect(taken.status).toBe(409);
    expect(taken.body.errorCode).toBe('conversation_state');

    const toBob = await call(t.app, alice.token, 'POST', `${base}/transfer`, { agent_id: bob.id });
    expect(toBob.body.entity).toMatchObject({ state: 'processing', agent: { id: bob.id } });
    const toQueue = await call(t.app, bob.token, 'POST', `${base}/transfer`, { queue_id: w.sales });
    expect(toQueue.body.entity).toMatchObject({ state: 'waiting', agent: null, queue_id: w.sales });
    const both = await call(t.app, w.adminToken, 'POST', `${base}/transfer`, { queue_id: w.sales, agent_id: bob.id });
    expect(both.status).toBe(400);

    const closed = await call(t.app, w.adminToken, 'POST', `${base}/close`);
    expect(closed.body.entity.state).toBe('closed');
    expect((await call(t.app, w.adminToken, 'POST', `${base}/close`)).status).toBe(409);

    // After closing, the customer's next message opens a new conversation.
    const next = await sendCustomerMessage(t.app, w.assoc, { from: 'm1' });
    expect(next.conversation_id).not.toBe(sent.conversation_id);
  });

  it('lists by state with lastMessage and keeps tenants apart', async () => {
    const w = await world();
    const sent = await sendCustomerMessage(t.app, w.assoc, { from: 'z1', text: 'last words' });
    const list = await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations?state=waiting`);
    const entity = list.body.entities.find((c: { id: number }) => c.id === sent.conversation_id);
    expect(entity).toMatchObject({ channelId: w.assoc.channelId, vip: false, lastMessage: { msg_id: sent.msg_id, bodies: [{ type: 'txt', msg: 'last words' }] } });
    const other = await world();
    expect((await call(t.app, other.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations`)).status).toBe(403);
    expect((await call(t.app, other.adminToken, 'GET', `/api/tenants/${other.tenantId}/conversations/${sent.conversation_id}`)).status).toBe(404);
  });
});
