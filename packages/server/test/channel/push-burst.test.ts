/**
 * A burst of pushes to one association (a close that moves a waiting line sends events to many
 * customers at once) goes out in parallel up to the association's share of the receiver's
 * connections (PARLEY_OUTBOUND_CONNECTIONS_PER_KEY, 16), not a few at a time: with the default
 * PARLEY_PUSH_CONCURRENCY, sixteen customers' pushes are at the receiver together. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

const PER_KEY = 16;

describe.each(ENGINES)('a burst of pushes to one association on %s', (engine) => {
  let t: TestApp;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start('/push');
    // Nothing is answered: every push stays in flight, so the receiver counts how many are at once.
    receiver.respond = () => 'hang';
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it("has the association's whole budget of pushes in flight at once with the default settings", async () => {
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Burst');
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'support');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 100, online: true });
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/burst`, { name: 'burst' });
    for (let n = 1; n <= PER_KEY + 4; n++) {
      const sent = await sendCustomerMessage(t.app, assoc, { from: `burst-${n}`, ext: { queue_name: 'support' } });
      const res = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/messages`, {
        bodies: [{ type: 'txt', msg: `reply ${n}` }],
      });
      expect(res.status).toBe(200);
    }
    // Eight at a time (the old default) would stop at 8 until the first timed out after 10 s.
    const inFlight = () => receiver.requests.filter((r) => r.path.endsWith('/burst')).length;
    expect(await waitFor(inFlight, (count) => count >= PER_KEY, 5_000)).toBe(PER_KEY);
    // The association's budget still holds: the other four wait in its queue.
    expect(inFlight()).toBe(PER_KEY);
  }, 30_000);
});
