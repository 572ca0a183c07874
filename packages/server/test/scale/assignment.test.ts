/**
 * Two app instances on one PostgreSQL database accept customer messages at the same time: one
 * open conversation per customer, and an agent never holds more than max_sessions conversations,
 * whether assigned on arrival or by the dispatcher when the agent comes online.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, setStatus } from '../helpers/channel.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

describe.runIf(ENGINES.includes('postgres'))('assignment across two instances on PostgreSQL', () => {
  let db: TestDatabase;
  let one: TestApp;
  let two: TestApp;
  let root: string;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    const env = { PARLEY_API_RATE_LIMIT: '100000', PARLEY_SECRET_KEY: 'ab'.repeat(32) };
    one = await createTestApp('postgres', { db, env });
    two = await createTestApp('postgres', { db, env });
    root = await login(one.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await db?.destroy();
  });

  async function world(name: string) {
    const tenant = await createTenant(one.app, root, name);
    const queue = await createQueue(one.app, tenant.adminToken, tenant.tenantId, 'sales');
    const assoc = await createAssociation(one.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { agent_queue_id: queue });
    return { ...tenant, queue, assoc };
  }

  async function conversations(w: { adminToken: string; tenantId: number }, state: string) {
    const res = await call(one.app, w.adminToken, 'GET', `/api/tenants/${w.tenantId}/conversations?state=${state}&limit=100`);
    return res.body.entities as Array<{ id: number; agent: { id: number } | null }>;
  }

  it('never assigns an agent more than max_sessions conversations opened concurrently on both instances', async () => {
    const w = await world('Capacity');
    const agent = await createAgent(one.app, w.adminToken, w.tenantId, { queueIds: [w.queue], maxSessions: 3, online: true });
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => sendCustomerMessage(i % 2 === 0 ? one.app : two.app, w.assoc, { from: `cap-${i}`, msg_id: `cap-msg-${i}` })),
    );
    const processing = await conversations(w, 'processing');
    expect(processing.filter((c) => c.agent?.id === agent.id)).toHaveLength(3);
    expect(await conversations(w, 'waiting')).toHaveLength(21);
  });

  it('keeps max_sessions when both instances dispatch the waiting line at once', async () => {
    const w = await world('Dispatch');
    const agent = await createAgent(one.app, w.adminToken, w.tenantId, { queueIds: [w.queue], maxSessions: 2 });
    for (let i = 0; i < 10; i++) await sendCustomerMessage(one.app, w.assoc, { from: `wait-${i}` });
    expect(await conversations(w, 'waiting')).toHaveLength(10);
    await setStatus(one.app, w.tenantId, agent, 'online');
    await Promise.all([
      one.app.parley.channel.dispatcher.agentAvailable(w.tenantId, agent.id),
      two.app.parley.channel.dispatcher.agentAvailable(w.tenantId, agent.id),
      two.app.parley.channel.dispatcher.agentAvailable(w.tenantId, agent.id),
    ]);
    expect(await conversations(w, 'processing')).toHaveLength(2);
  });

  it('keeps one open conversation per customer when the same customer writes to both instances at once', async () => {
    const w = await world('OneOpen');
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sendCustomerMessage(i % 2 === 0 ? one.app : two.app, w.assoc, { from: 'same-customer', msg_id: `same-${i}` })),
    );
    expect(new Set(sent.map((s) => s.conversation_id)).size).toBe(1);
  });
});
