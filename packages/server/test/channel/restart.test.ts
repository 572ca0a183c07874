/**
 * Durability across a crash: a reply accepted while the customer's server is down is delivered
 * after Parley is killed with SIGKILL and started again. Runs the built server (`npm test`
 * builds first) as a child process on a real port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sendMessageAuthorization, signSendMessage, verifyStandardWebhook } from '@parley/protocol';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(ENGINES)('crash durability on %s', (engine) => {
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let receiver: Receiver | undefined;

  afterAll(async () => {
    child?.kill('SIGKILL');
    await receiver?.close();
    await db?.destroy();
  });

  it('delivers a reply accepted while the receiver was down after kill -9 and restart', async () => {
    db = await createTestDatabase(engine);
    const port = await freePort();
    const receiverPort = await freePort(); // nothing listens there yet: the receiver is down
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: db.config.dataDir,
      ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
      PARLEY_ADMIN_USERNAME: 'root',
      PARLEY_ADMIN_PASSWORD: 'root-password-1',
      PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
      PARLEY_SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
    };
    const start = async () => {
      const proc = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
      await waitUntil(`Parley to be ready (${stderr})`, async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
      return proc;
    };
    const api = async (method: string, url: string, token?: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as { entity: any; entities: any[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    child = await start();
    const root = (await api('POST', '/api/login', undefined, { username: 'root', password: 'root-password-1' })).entity.access_token;
    const tenant = (await api('POST', '/api/tenants', root, { name: 'Crash', edition: 'flagship', admin: { username: 'crash-admin@example.com', password: 'crash-admin-pw', nickname: 'A' } })).entity;
    const admin = (await api('POST', '/api/login', undefined, { username: 'crash-admin@example.com', password: 'crash-admin-pw' })).entity.access_token;
    const agent = (
      await api('POST', `/api/tenants/${tenant.tenantId}/agents`, admin, {
        username: 'crash-agent@example.com',
        password: 'crash-agent-pw',
        nickname: 'Agent',
        role: 'agent',
        queue_ids: [tenant.defaultQueueId],
      })
    ).entity;
    const agentToken = (await api('POST', '/api/login', undefined, { username: 'crash-agent@example.com', password: 'crash-agent-pw' })).entity.access_token;
    await api('PUT', `/api/tenants/${tenant.tenantId}/agents/${agent.id}/status`, agentToken, { status: 'online' });
    const assoc = (await api('POST', `/api/tenants/${tenant.tenantId}/rest/channels`, admin, { name: 'crash', callback_url: `http://127.0.0.1:${receiverPort}/hook` })).entity;

    const body = JSON.stringify({ bodies: [{ type: 'txt', msg: 'help' }], origin_type: 'rest', from: 'crash-customer', timestamp: Date.now() });
    const signature = signSendMessage(assoc.clientSecret, { method: 'POST', path: assoc.postMessageUrl, expires: -1, body });
    const sent = await fetch(`${base}${assoc.postMessageUrl}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; utf-8', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(assoc.clientId, signature) },
      body,
    });
    expect(sent.status).toBe(200);
    const conversationId = ((await sent.json()) as { entity: { conversation_id: number } }).entity.conversation_id;
    const reply = (await api('POST', `/api/tenants/${tenant.tenantId}/conversations/${conversationId}/messages`, agentToken, { bodies: [{ type: 'txt', msg: 'we are on it' }] })).entity;

    // The first attempt fails (connection refused) and a retry is scheduled.
    const deliveriesUrl = `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/deliveries`;
    await waitUntil('a failed first attempt', async () => {
      const [d] = (await api('GET', deliveriesUrl, admin)).entities;
      return d?.attempts.length === 1 && d.status === 'pending' ? d : undefined;
    });

    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    receiver = await startReceiver({ port: receiverPort });
    child = await start();

    const [push] = await receiver.waitFor(1, 30_000);
    expect(push!.headers['webhook-id']).toBe(reply.delivery.id);
    expect(JSON.parse(push!.body)).toMatchObject({ to: 'crash-customer', bodies: [{ type: 'txt', msg: 'we are on it' }], ext: { msg_id: reply.msg_id } });
    const headers = {
      'webhook-id': push!.headers['webhook-id'] as string,
      'webhook-timestamp': push!.headers['webhook-timestamp'] as string,
      'webhook-signature': push!.headers['webhook-signature'] as string,
    };
    // The secret survived the restart (sealed in the database, key in DATA_DIR).
    expect(verifyStandardWebhook(assoc.clientSecret, headers, push!.rawBody, { nowSeconds: Math.floor(Date.now() / 1000) })).toBe(true);
    const done = await waitUntil('the delivery to succeed', async () => {
      const [d] = (await api('GET', deliveriesUrl, admin)).entities;
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempts.map((a: { succeeded: boolean }) => a.succeeded)).toEqual([false, true]);

    child.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
  }, 90_000);
});
