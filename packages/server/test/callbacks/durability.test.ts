/**
 * kill -9 with callbacks pending loses none: the built service runs as a child process, accepts
 * messages while the receiver hangs, is killed without shutdown, and after a restart on the same
 * database every record reaches the (now healthy) receiver, with the callIds it had before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';
import { startParley } from '../helpers/process.js';

const created: TestDatabase[] = [];
afterAll(async () => {
  for (const db of created) await db.destroy();
});

async function json(url: string, method: string, body?: unknown, token?: string) {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(ENGINES)('callbacks across kill -9 on %s', (engine) => {
  it('delivers every accepted message after a restart', async () => {
    const db = await createTestDatabase(engine);
    created.push(db);
    const receiver = await CallbackReceiver.start();
    const env = {
      DATA_DIR: db.config.dataDir,
      ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
      PARLEY_ADMIN_USERNAME: 'ops',
      PARLEY_ADMIN_PASSWORD: 'ops-password-1',
      PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
      PARLEY_CALLBACK_TIMEOUT_MS: '1000',
      PARLEY_CALLBACK_RULE_CONCURRENCY: '2',
      LOG_LEVEL: 'info',
    };
    try {
      const first = await startParley(env);
      const root = (await json(`${first.url}/api/login`, 'POST', { username: 'ops', password: 'ops-password-1' })).body.entity.access_token as string;
      const app = (await json(`${first.url}/management/apps`, 'POST', { org_name: 'acme', app_name: 'durable' }, root)).body.data;
      const base = `${first.url}/acme/durable`;
      const token = (await json(`${base}/token`, 'POST', { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret })).body.access_token as string;
      expect((await json(`${base}/users`, 'POST', [{ username: 'alice', password: 'pw-123456' }, { username: 'bob', password: 'pw-123456' }], token)).status).toBe(200);
      expect((await json(`${base}/callbacks/service`, 'PUT', { enabled: true, store_failed: false }, token)).status).toBe(200);
      expect((await json(`${base}/callbacks/rules`, 'POST', { name: 'main', url: receiver.url, event_types: ['chat'] }, token)).status).toBe(200);

      receiver.respond = () => 'hang';
      const msgIds: string[] = [];
      for (let i = 0; i < 30; i++) {
        const sent = await json(`${base}/messages/users`, 'POST', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: `m${i}` } }, token);
        expect(sent.status).toBe(200);
        msgIds.push(sent.body.data.bob as string);
      }
      // Some attempts are in flight (hung), the rest wait in the queue: now kill without shutdown.
      await waitFor(() => receiver.requests.length, (n) => n >= 2, 10_000);
      await first.kill9();
      const seenBefore = new Map(receiver.bodies<CallbackRecord>().map((b) => [b.msg_id, b.callId]));

      receiver.respond = () => ({ status: 200 });
      const second = await startParley(env);
      try {
        const delivered = () => new Set(receiver.bodies<CallbackRecord>().filter((b) => b.eventType === 'chat').map((b) => b.msg_id));
        // Jobs the killed process held come back at once on SQLite (its leases were in memory) and
        // when their lease (2 × timeout + 10 s) expires on PostgreSQL.
        await waitFor(delivered, (s) => msgIds.every((id) => s.has(id)), 40_000);
        const after = receiver.bodies<CallbackRecord>();
        for (const [msgId, callId] of seenBefore) expect(after.filter((b) => b.msg_id === msgId).every((b) => b.callId === callId)).toBe(true);
      } finally {
        await second.stop('SIGTERM');
      }
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
