import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

describe.each(ENGINES)('notes, labels, canned replies and history filters on %s', (engine) => {
  let t: TestApp;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let other: { tenantId: number; adminToken: string; defaultQueueId: string };
  let agent: TestAgent;
  let colleague: TestAgent;
  let outsider: TestAgent;
  let assoc: TestAssociation;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Tools');
    other = await createTenant(t.app, root, 'Others');
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'tools');
    const elsewhere = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'elsewhere');
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 50, online: true, nickname: 'Amy' });
    colleague = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], nickname: 'Bo' });
    outsider = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [elsewhere], nickname: 'Cy' });
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`, { agent_queue_id: queueId });
    // Every push (replies included) is recorded: notes must never be among them.
    await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}`, { events: ['assigned', 'closed'] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const api = (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, tenantId = tenant.tenantId) => call(t.app, token, method, `/api/tenants/${tenantId}${path}`, body);

  it('keeps private notes on a conversation for those who see it, never pushed', async () => {
    const conv = (await sendCustomerMessage(t.app, assoc, { from: 'note-customer' })).conversation_id;
    const added = await api(agent.token, 'POST', `/conversations/${conv}/notes`, { text: 'VIP, handle with care' });
    expect(added.status).toBe(200);
    expect(added.body.entity).toEqual({ id: expect.any(Number), text: 'VIP, handle with care', author: { id: agent.id, nickname: 'Amy' }, createdAt: expect.any(Number) });
    await api(colleague.token, 'POST', `/conversations/${conv}/notes`, { text: 'Second note' });
    const notes = await api(tenant.adminToken, 'GET', `/conversations/${conv}/notes`);
    expect(notes.body.entities.map((n: { text: string }) => n.text)).toEqual(['VIP, handle with care', 'Second note']);
    expect(notes.body.total).toBe(2);
    expect((await api(outsider.token, 'GET', `/conversations/${conv}/notes`)).status).toBe(403);
    expect((await api(agent.token, 'POST', `/conversations/${conv}/notes`, { text: '' })).status).toBe(400);
    t.app.parley.jobs.notifyAll();
    await t.app.parley.jobs.idle();
    expect(receiver.requests.some((r) => r.body.includes('handle with care'))).toBe(false);
  });

  it('labels a conversation; the list filters by label (a conversation label or a visitor tag), customer, agent, text and time', async () => {
    const a = (await sendCustomerMessage(t.app, assoc, { from: 'label-a', text: 'My parcel is late' })).conversation_id;
    const b = (await sendCustomerMessage(t.app, assoc, { from: 'label-b', text: 'Refund please', ext: { visitor: { tags: ['refund'] } } })).conversation_id;
    const put = await api(agent.token, 'PUT', `/conversations/${a}/labels`, { labels: ['refund', 'late'] });
    expect(put.status).toBe(200);
    expect(put.body.entity).toEqual({ labels: ['late', 'refund'] });
    expect((await api(agent.token, 'GET', `/conversations/${a}`)).body.entity.labels).toEqual(['late', 'refund']);
    const ids = async (query: string) => (await api(tenant.adminToken, 'GET', `/conversations?${query}`)).body.entities.map((c: { id: number }) => c.id).sort();
    expect(await ids('label=refund')).toEqual([a, b].sort());
    expect(await ids('label=late')).toEqual([a]);
    expect(await ids('customer=label-b')).toEqual([b]);
    expect(await ids(`q=${encodeURIComponent('PARCEL')}`)).toEqual([a]);
    expect((await ids(`agent_id=${agent.id}&label=refund`)).length).toBe(2);
    expect(await ids(`from=${Date.now() + 10 * 86_400_000}&label=refund`)).toEqual([]);
    // Replacing the labels drops the old ones.
    await api(agent.token, 'PUT', `/conversations/${a}/labels`, { labels: [] });
    expect(await ids('label=late')).toEqual([]);
    expect((await api(agent.token, 'PUT', `/conversations/${a}/labels`, { labels: ['x', 'x'] })).status).toBe(400);
    expect((await api(outsider.token, 'PUT', `/conversations/${a}/labels`, { labels: ['x'] })).status).toBe(403);
  });

  it('keeps canned replies of the tenant and of each agent apart; another tenant never sees them', async () => {
    const shared = await api(tenant.adminToken, 'POST', '/canned-replies', { shortcut: 'hello', text: 'Hello, how can I help?', scope: 'tenant' });
    expect(shared.status).toBe(200);
    expect(shared.body.entity).toMatchObject({ shortcut: 'hello', scope: 'tenant' });
    expect((await api(agent.token, 'POST', '/canned-replies', { shortcut: 'bye', text: 'x', scope: 'tenant' })).status).toBe(403);
    const own = await api(agent.token, 'POST', '/canned-replies', { shortcut: 'hello', text: 'Hi, Amy here!', scope: 'personal' });
    expect(own.status).toBe(200);
    const dup = await api(agent.token, 'POST', '/canned-replies', { shortcut: 'hello', text: 'again', scope: 'personal' });
    expect(dup.status).toBe(409);
    expect(dup.body.errorCode).toBe('duplicate_name');
    expect((await api(agent.token, 'POST', '/canned-replies', { shortcut: 'has space', text: 'x', scope: 'personal' })).status).toBe(400);

    const mine = (await api(agent.token, 'GET', '/canned-replies')).body.entities;
    expect(mine.map((c: { text: string; scope: string }) => [c.scope, c.text])).toEqual([
      ['tenant', 'Hello, how can I help?'],
      ['personal', 'Hi, Amy here!'],
    ]);
    const theirs = (await api(colleague.token, 'GET', '/canned-replies')).body.entities;
    expect(theirs.map((c: { scope: string }) => c.scope)).toEqual(['tenant']);
    expect((await api(colleague.token, 'GET', `/canned-replies/${own.body.entity.id}`)).status).toBe(404);
    expect((await api(colleague.token, 'PUT', `/canned-replies/${shared.body.entity.id}`, { text: 'nope' })).status).toBe(403);

    const edited = await api(agent.token, 'PUT', `/canned-replies/${own.body.entity.id}`, { text: 'Hi, this is Amy.' });
    expect(edited.body.entity).toMatchObject({ text: 'Hi, this is Amy.', scope: 'personal' });
    expect((await api(agent.token, 'DELETE', `/canned-replies/${own.body.entity.id}`)).body.entity).toEqual({ deleted: true });
    expect((await api(agent.token, 'GET', `/canned-replies/${own.body.entity.id}`)).status).toBe(404);

    // Another tenant: neither in its list nor by id.
    expect((await api(other.adminToken, 'GET', '/canned-replies', undefined, other.tenantId)).body.entities).toEqual([]);
    expect((await api(other.adminToken, 'GET', `/canned-replies/${shared.body.entity.id}`, undefined, other.tenantId)).status).toBe(404);
    expect((await api(other.adminToken, 'GET', '/canned-replies')).status).toBe(403);
  });
});
