import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAgent, type TestAssociation } from '../helpers/channel.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Opens an SSE stream and collects its events; `next(type)` waits for the next one of a type. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  const pump = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
          for (const w of waiters.splice(0)) w();
        }
      }
    } catch {
      /* aborted */
    }
  })();
  let cursor = 0;
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    async next(type: string, timeoutMs = 5000): Promise<SseEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = events.findIndex((e, idx) => idx >= cursor && e.event === type);
        if (i >= 0) {
          cursor = i + 1;
          return events[i]!;
        }
        if (Date.now() > deadline) throw new Error(`no ${type} event; got ${events.map((e) => e.event).join(', ')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}

describe.each(ENGINES)('live events for agents on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let receiver: Receiver;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let assoc: TestAssociation;
  let agent: TestAgent;
  let outsider: TestAgent;
  let queueId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Events');
    queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'events');
    const otherQueue = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'elsewhere');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hook`);
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId] });
    outsider = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [otherQueue] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('refuses a stream without a valid token', async () => {
    const res = await fetch(`${base}/api/tenants/${tenant.tenantId}/events`);
    expect(res.status).toBe(401);
    const bad = await fetch(`${base}/api/tenants/${tenant.tenantId}/events?access_token=nope`);
    expect(bad.status).toBe(401);
  });

  it('streams new_conversation, new_message, assignment and delivery_status to the agent', async () => {
    const stream = await openStream(`${base}/api/tenants/${tenant.tenantId}/events?access_token=${agent.token}`);
    const other = await openStream(`${base}/api/tenants/${tenant.tenantId}/events`, { authorization: `Bearer ${outsider.token}` });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain('text/event-stream');
    await stream.next('ready');
    await other.next('ready');

    const sent = await sendCustomerMessage(t.app, assoc, { from: 'live-1', ext: { queue_name: 'events' } });
    expect((await stream.next('new_conversation')).data).toMatchObject({ conversationId: sent.conversation_id, queueId: Number(queueId), agentId: null });
    expect((await stream.next('new_message')).data).toMatchObject({ conversationId: sent.conversation_id, msg_id: sent.msg_id, direction: 'customer' });

    const accepted = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/accept`);
    expect(accepted.status).toBe(200);
    expect((await stream.next('assignment')).data).toMatchObject({ conversationId: sent.conversation_id, agentId: agent.id, state: 'processing' });

    const replied = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hi' }] });
    await t.app.parley.jobs.idle();
    expect((await stream.next('delivery_status')).data).toMatchObject({ deliveryId: replied.body.entity.delivery.id, status: 'succeeded', msg_id: replied.body.entity.msg_id });

    // An agent of another skill group saw none of it.
    expect(other.events.map((e) => e.event)).toEqual(['ready']);
    await stream.close();
    await other.close();
  });
});

describe('live events across two instances sharing PostgreSQL and Redis', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  const env = { PARLEY_API_RATE_LIMIT: '100000', REDIS_URL: process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };

  beforeAll(async () => {
    db = await createTestDatabase(ENGINES.includes('postgres') ? 'postgres' : 'sqlite');
    a = await createTestApp(db.engine, { db, env });
    b = await createTestApp(db.engine, { db, env });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.destroy();
  });

  it('delivers an event published on one instance to a stream open on the other', async () => {
    const root = await login(a.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(a.app, root, 'TwoInstances');
    const assoc = await createAssociation(a.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const base = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
    const stream = await openStream(`${base}/api/tenants/${tenant.tenantId}/events?access_token=${tenant.adminToken}`);
    await stream.next('ready');
    const sent = await sendCustomerMessage(a.app, assoc, { from: 'two-instances' });
    expect((await stream.next('new_message')).data).toMatchObject({ conversationId: sent.conversation_id, msg_id: sent.msg_id });
    await stream.close();
  });
});
