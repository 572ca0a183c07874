/**
 * The agent inbox's list (docs/channel.md, "The inbox: counts, views, filters and sort"): the
 * counts of the three views in one call (an agent's view and an admin's, with the shared filters),
 * the `team` view, the VIP and waiting-time filters (on the injected clock), the sort orders with
 * their keyset cursors, and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

const MINUTE = 60_000;

describe.each(ENGINES)('the inbox list: counts, views, filters and sort on %s', (engine) => {
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

  async function world(): Promise<World> {
    const tenant = await createTenant(t.app, root, `Inbox${++n}`);
    const sales = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'sales');
    const billing = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'billing');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const alice = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [sales] });
    const bob = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [sales, billing] });
    return { ...tenant, sales, billing, assoc, alice, bob };
  }
  const api = (w: World, token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(t.app, token, method, `/api/tenants/${w.tenantId}/conversations${path}`, body);
  const ids = async (w: World, token: string, query: string) => {
    const res = await api(w, token, 'GET', `?${query}`);
    expect(res.status, query).toBe(200);
    return (res.body.entities as Array<{ id: number }>).map((c) => c.id);
  };
  const counts = async (w: World, token: string, query = '') => {
    const res = await api(w, token, 'GET', `/counts${query ? `?${query}` : ''}`);
    expect(res.status, query).toBe(200);
    return res.body.entity as { waiting: number; mine: number; team: number };
  };
  const open = async (w: World, from: string, queue: 'sales' | 'billing', text = 'hello', tags?: string[]) =>
    (await sendCustomerMessage(t.app, w.assoc, { from, text, ext: { queue_name: queue, ...(tags ? { visitor: { tags } } : {}) } })).conversation_id;

  it('counts the three views in one call, as each caller may see them, with the filters of the list', async () => {
    const w = await world();
    const s1 = await open(w, 'c-s1', 'sales', 'where is my parcel');
    const s2 = await open(w, 'c-s2', 'sales', 'refund please', ['vip']);
    await open(w, 'c-s3', 'sales');
    const b1 = await open(w, 'c-b1', 'billing', 'invoice wrong');
    await open(w, 'c-b2', 'billing');
    const closed = await open(w, 'c-s4', 'sales');
    expect((await api(w, w.alice.token, 'POST', `/${s1}/accept`)).status).toBe(200);
    expect((await api(w, w.bob.token, 'POST', `/${s2}/accept`)).status).toBe(200);
    expect((await api(w, w.bob.token, 'POST', `/${b1}/accept`)).status).toBe(200);
    expect((await api(w, w.alice.token, 'POST', `/${closed}/accept`)).status).toBe(200);
    expect((await api(w, w.alice.token, 'POST', `/${closed}/close`)).status).toBe(200);

    // Alice works in sales: one waiting there, hers, and Bob's sales conversation (his billing one is not hers to see).
    expect(await counts(w, w.alice.token)).toEqual({ waiting: 1, mine: 1, team: 1 });
    expect(await counts(w, w.bob.token)).toEqual({ waiting: 2, mine: 2, team: 1 });
    // The admin holds nothing: every open conversation of the tenant is someone else's or waiting.
    expect(await counts(w, w.adminToken)).toEqual({ waiting: 2, mine: 0, team: 3 });

    // The list's filters narrow the counts the same way.
    expect(await counts(w, w.adminToken, `queue_id=${w.billing}`)).toEqual({ waiting: 1, mine: 0, team: 1 });
    expect(await counts(w, w.adminToken, 'vip=true')).toEqual({ waiting: 0, mine: 0, team: 1 });
    expect(await counts(w, w.adminToken, 'vip=false')).toEqual({ waiting: 2, mine: 0, team: 2 });
    expect(await counts(w, w.adminToken, 'q=PARCEL')).toEqual({ waiting: 0, mine: 0, team: 1 });
    expect(await counts(w, w.adminToken, 'customer=c-b2')).toEqual({ waiting: 1, mine: 0, team: 0 });
    expect((await api(w, w.bob.token, 'PUT', `/${b1}/labels`, { labels: ['urgent'] })).status).toBe(200);
    expect(await counts(w, w.adminToken, 'label=urgent')).toEqual({ waiting: 0, mine: 0, team: 1 });
    expect(await counts(w, w.alice.token, 'label=urgent')).toEqual({ waiting: 0, mine: 0, team: 0 });

    // The team view of the list: in progress and held by someone else.
    expect(await ids(w, w.alice.token, 'state=processing&team=true')).toEqual([s2]);
    expect((await ids(w, w.adminToken, 'state=processing&team=true')).sort()).toEqual([s1, s2, b1].sort());
    expect(await ids(w, w.alice.token, 'state=processing&mine=true&team=true')).toEqual([]);
    expect(await ids(w, w.adminToken, 'state=processing&vip=true')).toEqual([s2]);

    for (const query of ['vip=maybe', 'state=waiting', 'q=', `queue_id=x`]) {
      const bad = await api(w, w.alice.token, 'GET', `/counts?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.errorCode).toBe('invalid_request');
    }
    const other = await createTenant(t.app, root, `Inbox-other${n}`);
    expect((await call(t.app, other.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations/counts`)).status).toBe(403);
  });

  it('keeps the conversations waiting longer than a time, on the injected clock', async () => {
    const w = await world();
    const old = await open(w, 'c-old', 'sales');
    clock.advance(10 * MINUTE);
    const mid = await open(w, 'c-mid', 'sales');
    clock.advance(4 * MINUTE);
    const recent = await open(w, 'c-new', 'sales');
    expect(await ids(w, w.alice.token, 'state=waiting&waiting_min=10')).toEqual([old]);
    expect(await ids(w, w.alice.token, 'state=waiting&waiting_min=4')).toEqual([old, mid]);
    clock.advance(MINUTE);
    expect(await ids(w, w.alice.token, 'state=waiting&waiting_min=5')).toEqual([old, mid]);
    // Only waiting conversations have a waiting time.
    expect((await api(w, w.alice.token, 'POST', `/${old}/accept`)).status).toBe(200);
    expect(await ids(w, w.alice.token, 'waiting_min=1')).toEqual([recent, mid]);
    expect(await ids(w, w.alice.token, 'waiting_min=2')).toEqual([mid]);
    const bad = await api(w, w.alice.token, 'GET', '?waiting_min=0');
    expect(bad.status).toBe(400);
  });

  it('sorts by queue order, longest waiting, newest and latest activity, and pages each with its own cursor', async () => {
    const w = await world();
    const made: number[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(await open(w, `c-sort${i}`, 'sales', `hello ${i}`, i === 3 ? ['vip'] : undefined));
      clock.advance(MINUTE);
    }
    // Activity: the first one speaks again last.
    await sendCustomerMessage(t.app, w.assoc, { from: 'c-sort0', text: 'still there?', ext: { queue_name: 'sales' } });
    const [c0, c1, c2, c3, c4] = made as [number, number, number, number, number];

    expect(await ids(w, w.alice.token, 'state=waiting')).toEqual([c3, c0, c1, c2, c4]);
    expect(await ids(w, w.alice.token, 'state=waiting&sort=queue')).toEqual([c3, c0, c1, c2, c4]);
    expect(await ids(w, w.alice.token, 'state=waiting&sort=longest_waiting')).toEqual([c0, c1, c2, c3, c4]);
    expect(await ids(w, w.alice.token, 'state=waiting&sort=newest')).toEqual([c4, c3, c2, c1, c0]);
    expect(await ids(w, w.alice.token, 'state=waiting&sort=latest')).toEqual([c0, c4, c3, c2, c1]);

    for (const [sort, expected] of [
      ['longest_waiting', [c0, c1, c2, c3, c4]],
      ['newest', [c4, c3, c2, c1, c0]],
      ['latest', [c0, c4, c3, c2, c1]],
    ] as const) {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page = await api(w, w.alice.token, 'GET', `?state=waiting&sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, sort).toBe(200);
        seen.push(...(page.body.entities as Array<{ id: number }>).map((c) => c.id));
        cursor = page.body.cursor as string | null;
        if (cursor) {
          // A cursor belongs to its order: another order refuses it.
          const other = sort === 'newest' ? 'latest' : 'newest';
          const refused = await api(w, w.alice.token, 'GET', `?state=waiting&sort=${other}&cursor=${cursor}`);
          expect(refused.status).toBe(400);
          expect(refused.body.errorDescription).toContain('cursor');
        }
      } while (cursor);
      expect(seen, sort).toEqual(expected);
    }
    const bad = await api(w, w.alice.token, 'GET', '?sort=oldest');
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('invalid_request');
  });
});
