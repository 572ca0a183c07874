/**
 * The agents' side beyond the queue: who sees which conversation (an agent: their skill groups' and
 * their own; an admin: all), a tenant admin working as an agent, replying before accepting, and the conversation list's filters and
 * keyset pages (docs/channel.md, "Who sees what" and "Listing and history").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('conversation history and who sees what on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let root: string;
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  interface World {
    tenantId: number;
    adminToken: string;
    sales: string;
    billing: string;
    assoc: TestAssociation;
    alice: TestAgent;
    bob: TestAgent;
  }

  /** A tenant with two skill groups: alice works in sales, bob in billing (both offline: nothing is assigned by itself). */
  async function world(): Promise<World> {
    const tenant = await createTenant(t.app, root, `History${++n}`);
    const sales = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'sales');
    const billing = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const alice = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [sales] });
    const bob = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [billing] });
    return { ...tenant, sales, billing, assoc, alice, bob };
  }
  const api = (w: World, token: string, method: 'GET' | 'POST', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${w.tenantId}/conversations${path}`, body);
  const ids = (res: { body: { entities: Array<{ id: number }> } }) => res.body.entities.map((c) => c.id);
  const open = async (w: World, from: string, queue: 'sales' | 'billing', text = 'hello', tags?: string[]) =>
    (await sendCustomerMessage(t.app, w.assoc, { from, text, ext: { queue_name: queue, ...(tags ? { visitor: { tags } } : {}) } })).conversation_id;

  it('shows an agent the waiting conversations of their own skill groups only, and an admin all', async () => {
    const w = await world();
    const inSales = await open(w, 'c-sales', 'sales');
    const inBilling = await open(w, 'c-billing', 'billing');

    expect(ids(await api(w, w.alice.token, 'GET', '?state=waiting'))).toEqual([inSales]);
    expect(ids(await api(w, w.bob.token, 'GET', '?state=waiting'))).toEqual([inBilling]);
    expect(ids(await api(w, w.adminToken, 'GET', '?state=waiting'))).toEqual([inSales, inBilling]);
    // Naming the other group's queue does not widen the view.
    expect(ids(await api(w, w.alice.token, 'GET', `?state=waiting&queue_id=${w.billing}`))).toEqual([]);

    for (const [method, path] of [['GET', `/${inBilling}`], ['GET', `/${inBilling}/messages`], ['POST', `/${inBilling}/accept`]] as const) {
      const refused = await api(w, w.alice.token, method, path);
      expect(refused.status).toBe(403);
      expect(refused.body.errorCode).toBe('forbidden');
    }
    expect((await api(w, w.bob.token, 'GET', `/${inBilling}`)).body.entity.state).toBe('waiting');
    expect((await api(w, w.bob.token, 'POST', `/${inBilling}/accept`)).body.entity).toMatchObject({ state: 'processing', agent: { id: w.bob.id } });
    expect((await api(w, w.alice.token, 'POST', `/${inSales}/accept`)).status).toBe(200);
    expect(ids(await api(w, w.alice.token, 'GET', '?mine=true&state=processing'))).toEqual([inSales]);

    // A tenant admin belongs to no skill group here and still takes any waiting conversation.
    const another = await open(w, 'c-billing-2', 'billing');
    expect((await api(w, w.adminToken, 'POST', `/${another}/accept`)).body.entity.state).toBe('processing');
  });

  it('lets a tenant admin work as an agent: status, accept, mine, reply, close, and their closed conversations by agent_id', async () => {
    const w = await world();
    const agents = (await call(t.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/agents`)).body.entities as Array<{ id: number; role: string }>;
    const adminId = agents.find((a) => a.role === 'admin')!.id;
    const status = await call(t.app, w.adminToken, 'PUT', `/api/tenants/${w.tenantId}/agents/${adminId}/status`, { status: 'busy' });
    expect(status.body.entity).toMatchObject({ id: adminId, status: 'busy' });

    const id = await open(w, 'c-admin', 'billing');
    expect((await api(w, w.adminToken, 'POST', `/${id}/accept`)).body.entity).toMatchObject({ state: 'processing', agent: { id: adminId } });
    expect(ids(await api(w, w.adminToken, 'GET', '?mine=true&state=processing'))).toEqual([id]);
    const reply = await api(w, w.adminToken, 'POST', `/${id}/messages`, { bodies: [{ type: 'txt', msg: 'admin here' }] });
    expect(reply.status).toBe(200);
    const history = (await api(w, w.adminToken, 'GET', `/${id}/messages`)).body.entities as Array<{ direction: string; agent: { id: number } | null }>;
    expect(history.map((m) => [m.direction, m.agent?.id ?? null])).toEqual([
      ['customer', null],
      ['agent', adminId],
    ]);
    expect((await api(w, w.adminToken, 'POST', `/${id}/close`)).body.entity).toMatchObject({ state: 'closed', agent: { id: adminId } });
    expect(ids(await api(w, w.adminToken, 'GET', `?state=closed&agent_id=${adminId}`))).toEqual([id]);
  });

  it('answers 409 conversation_state to a reply on a waiting conversation nobody holds, 403 when another agent holds it', async () => {
    const w = await world();
    const carol = await createAgent(t.app, w.adminToken, w.tenantId, { queueIds: [w.sales] });
    const id = await open(w, 'c-reply', 'sales');
    const bodies = [{ type: 'txt', msg: 'hi' }];

    const early = await api(w, w.alice.token, 'POST', `/${id}/messages`, { bodies });
    expect(early.status).toBe(409);
    expect(early.body.errorCode).toBe('conversation_state');
    expect((await api(w, w.alice.token, 'POST', `/${id}/accept`)).status).toBe(200);
    const notHers = await api(w, carol.token, 'POST', `/${id}/messages`, { bodies });
    expect(notHers.status).toBe(403);
    expect(notHers.body.errorCode).toBe('forbidden');
    expect((await api(w, w.alice.token, 'POST', `/${id}/messages`, { bodies })).status).toBe(200);
  });

  it('lists closed conversations and filters by agent, customer, message text, customer tag and time', async () => {
    const w = await world();
    const t0 = clock.now();
    const parcel = await open(w, 'c-parcel', 'sales', 'Where is my PARCEL?', ['gold']);
    expect((await api(w, w.alice.token, 'POST', `/${parcel}/accept`)).status).toBe(200);
    expect((await api(w, w.alice.token, 'POST', `/${parcel}/messages`, { bodies: [{ type: 'txt', msg: 'It left the Warehouse today' }] })).status).toBe(200);
    expect((await api(w, w.alice.token, 'POST', `/${parcel}/close`)).status).toBe(200);
    clock.advance(3_600_000);
    const russian = await open(w, 'c-ru', 'billing', 'Привет, нужна помощь');
    expect((await api(w, w.bob.token, 'POST', `/${russian}/accept`)).status).toBe(200);
    expect((await api(w, w.bob.token, 'POST', `/${russian}/close`)).status).toBe(200);
    clock.advance(3_600_000);
    const waiting = await open(w, 'c-wait', 'sales', 'type anything');

    const closed = await api(w, w.adminToken, 'GET', '?state=closed');
    expect(ids(closed)).toEqual([russian, parcel]);
    expect(closed.body).toMatchObject({ total: 2, cursor: null });
    expect(closed.body.entities[1]).toMatchObject({ state: 'closed', agent: { id: w.alice.id }, createdAt: t0, updatedAt: t0, closedAt: t0 });

    const admin = async (query: string) => ids(await api(w, w.adminToken, 'GET', `?${query}`));
    expect(await admin(`agent_id=${w.alice.id}`)).toEqual([parcel]);
    expect(await admin('customer=c-ru')).toEqual([russian]);
    expect(await admin('q=parcel')).toEqual([parcel]);
    expect(await admin('q=WAREHOUSE')).toEqual([parcel]);
    expect(await admin(`q=${encodeURIComponent('ПРИВЕТ')}`)).toEqual([russian]);
    // The text of messages, not their JSON: "txt" and "msg" are keys of every body.
    expect(await admin('q=txt')).toEqual([]);
    expect(await admin('q=type')).toEqual([waiting]);
    expect(await admin('label=gold')).toEqual([parcel]);
    expect(await admin('label=gol')).toEqual([]);
    expect(await admin(`to=${t0 + 1_800_000}`)).toEqual([parcel]);
    expect(await admin(`from=${t0 + 3_600_000}`)).toEqual([waiting, russian]);
    expect(await admin(`from=${t0 + 3_600_000}&to=${t0 + 3_600_000}&state=closed`)).toEqual([russian]);

    // Agents search only what they may see: their groups' and their own.
    expect(ids(await api(w, w.alice.token, 'GET', '?state=closed'))).toEqual([parcel]);
    expect(ids(await api(w, w.alice.token, 'GET', `?agent_id=${w.bob.id}`))).toEqual([]);
    expect(ids(await api(w, w.bob.token, 'GET', '?q=parcel'))).toEqual([]);
    expect((await api(w, w.bob.token, 'GET', `/${parcel}/messages`)).status).toBe(403);
    const history = await api(w, w.alice.token, 'GET', `/${parcel}/messages`);
    expect(history.body.entities.map((m: { direction: string }) => m.direction)).toEqual(['customer', 'agent']);
  });

  it('pages with a cursor in either order, without repeats or gaps, 20 by default', async () => {
    const w = await world();
    expect((await call(t.app, w.adminToken, 'PUT', `/api/tenants/${w.tenantId}/settings`, { vip_tags: ['gold'] })).status).toBe(200);
    const opened: number[] = [];
    // One instant for all: the order's last key (id) breaks every tie.
    for (let i = 0; i < 25; i++) opened.push(await open(w, `page-${i}`, 'sales', 'hello', i % 7 === 3 ? ['gold'] : undefined));
    const vip = opened.filter((_, i) => i % 7 === 3);

    const first = await api(w, w.adminToken, 'GET', '');
    expect(first.body.entities).toHaveLength(20);
    expect(first.body.total).toBe(20);
    expect(typeof first.body.cursor).toBe('string');
    // A conversation opened between two pages lands ahead of the cursor, not on a later page.
    const late = await open(w, 'page-late', 'sales');
    const second = await api(w, w.adminToken, 'GET', `?cursor=${first.body.cursor}`);
    expect(second.body.cursor).toBeNull();
    expect([...ids(first), ...ids(second)]).toEqual([...opened].reverse());
    expect(ids(await api(w, w.adminToken, 'GET', '?limit=1'))).toEqual([late]);

    const queueOrder = [...vip, ...[...opened, late].filter((id) => !vip.includes(id))];
    const pages: number[] = [];
    let cursor: string | null = null;
    let queueCursor = '';
    do {
      const page = await api(w, w.alice.token, 'GET', `?state=waiting&limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      pages.push(...ids(page));
      cursor = page.body.cursor;
      if (cursor) queueCursor = cursor;
    } while (cursor);
    expect(pages).toEqual(queueOrder);

    for (const query of [`cursor=${queueCursor}`, 'cursor=bm90LWEtY3Vyc29y', 'limit=101', 'limit=0', 'from=-1']) {
      const bad = await api(w, w.adminToken, 'GET', `?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.errorCode).toBe('invalid_request');
      expect(bad.body.errorDescription).toContain(query.split('=')[0]);
    }
  });
});
