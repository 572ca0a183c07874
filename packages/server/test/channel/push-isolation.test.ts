/**
 * Two REST associations whose callback URLs share one host and port: the association whose
 * receiver hangs holds at most its budget of the origin's connections
 * (PARLEY_OUTBOUND_CONNECTIONS_PER_KEY), so the other association's reply pushes go out while it
 * hangs. The app's default sender (on its worker thread, from the build), both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createAgent, createAssociation, createQueue, sendCustomerMessage, type TestAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

const POOL = 4;
const PER_KEY = 2;

describe.each(ENGINES)('reply pushes of associations sharing a receiver origin on %s', (engine) => {
  let t: TestApp;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start('/push');
    receiver.respond = (req) => (req.path.endsWith('/hung') ? 'hang' : { status: 200, body: 'ok' });
    t = await createTestApp(engine, {
      env: {
        PARLEY_API_RATE_LIMIT: '100000',
        PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: String(POOL),
        PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: String(PER_KEY),
      },
    });
  });
  afterAll(async () => {
    // Closing the receiver ends the hung pushes (connection failures, retried later in fake time).
    await receiver?.close();
    await t?.close();
  });

  it("pushes one association's replies while another association's receiver on the same host and port hangs", async () => {
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'Isolation');
    const queueId = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'support');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [queueId], maxSessions: 100, online: true });
    await t.app.parley.outbound.warmUp?.();
    const hung = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/hung`, { name: 'hung' });
    const well = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, `${receiver.url}/well`, { name: 'well' });
    let n = 0;
    /** A reply to a new customer of `assoc`: each customer's pushes are their own job sequence. */
    async function replyToNewCustomer(assoc: TestAssociation): Promise<void> {
      const sent = await sendCustomerMessage(t.app, assoc, { from: `cust-${++n}`, ext: { queue_name: 'support' } });
      const res = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/messages`, {
        bodies: [{ type: 'txt', msg: `reply ${n}` }],
      });
      expect(res.status).toBe(200);
    }
    const arrived = (path: string) => () => receiver.requests.filter((r) => r.path.endsWith(path)).length;

    // Four customers of the hung association: four pushes at once, only its budget of them sent.
    for (let i = 0; i < 4; i++) await replyToNewCustomer(hung);
    await waitFor(arrived('/hung'), (count) => count >= PER_KEY);

    for (let i = 0; i < 2; i++) await replyToNewCustomer(well);
    // Without the budget the hung association's four pushes hold all four connections for 10 s.
    expect(await waitFor(arrived('/well'), (count) => count === 2, 5_000)).toBe(2);
    expect(arrived('/hung')()).toBe(PER_KEY);
  }, 30_000);
});
