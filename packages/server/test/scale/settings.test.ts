/**
 * Read-your-writes of settings across instances (coordination/settings-versions.ts): two Parley
 * processes on one PostgreSQL and one Redis, both with the settings cached from traffic just
 * before. Once a change answered 200 on instance A, a burst sent at once through A and B obeys it
 * on both: nothing reaches a rule's old URL, every record is signed with the rotated secret,
 * a disabled rule sends nothing, and an association's old Client Secret is refused by B. A deleted
 * IM user's token, verified by B just before, is refused by B within moments, not after B's 10 s
 * token cache.
 */
import pg from 'pg';
import { sendMessageAuthorization, signSendMessage, verifyCallbackSecurity, verifyStandardWebhook } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParleyProcess } from '../helpers/process.js';
import { customerMessage } from '../helpers/channel.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { call, imApp, metricSum, pooled, rootToken, sendText, startCluster, until, type Cluster, type ImTarget, type Json } from './cluster.js';

/** The text of the message a callback request carries. */
const textOf = (q: ReceivedRequest): string => String((JSON.parse(q.body) as Json).payload?.bodies?.[0]?.msg ?? '');
/** The texts `r` received that start with `prefix`, in order. */
const received = (r: Receiver, prefix: string): string[] => r.requests.map(textOf).filter((t) => t.startsWith(prefix));

describe('settings changed on one instance are obeyed by all at once', () => {
  let cluster: Cluster;
  let a: ParleyProcess;
  let b: ParleyProcess;
  let root: string;
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    cluster = await startCluster({
      // Copies of rules kept for 10 minutes: an instance that trusted its copy would surely miss the
      // change (with the default 2 s it would miss it only sometimes, whatever the test's timing).
      PARLEY_CALLBACK_RULE_CACHE_MS: '600000',
      PARLEY_CALLBACK_RULE_CONCURRENCY: '32',
      PARLEY_IM_RATE_LIMIT: '1000000',
      PARLEY_API_RATE_LIMIT: '100000',
    });
    [a, b] = await Promise.all([cluster.start(), cluster.start()]);
    root = await rootToken(a.url);
  }, 60_000);

  afterAll(async () => {
    for (const r of receivers) await r.close();
    await cluster?.close();
  }, 30_000);

  const perInstance = async () => [await metricSum(a.url, 'parley_callback_records_total'), await metricSum(b.url, 'parley_callback_records_total')];

  /** `count` messages sent at once, half through each instance; each answered 200. */
  async function burst(target: ImTarget, prefix: string, count: number): Promise<string[]> {
    const texts = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    await pooled(count, 32, async (i) => {
      expect(await sendText(i % 2 === 0 ? a.url : b.url, target, texts[i] as string)).toBe(200);
    });
    return texts;
  }

  /**
   * An app whose rule points at `r`, with the rule and the app's settings freshly cached on both
   * instances: a first burst, accepted by both, was delivered. Then `change` (answered 200), and
   * a check that both instances delivered part of the first burst.
   */
  async function warmThen(name: string, r: Receiver, change: (target: ImTarget) => Promise<{ status: number; body: Json }>) {
    const target = await imApp(a.url, root, name, r.url);
    const before = await perInstance();
    const warm = await burst(target, `${name}-warm`, 100);
    await until(() => received(r, `${name}-warm`).length >= warm.length, 30_000, 'the warm-up burst');
    const changed = await change(target);
    expect(changed.status).toBe(200);
    const after = await perInstance();
    expect(after[0]! - before[0]!).toBeGreaterThan(0);
    expect(after[1]! - before[1]!).toBeGreaterThan(0);
    return { target, changed: changed.body };
  }

  /** Fan-outs and callback deliveries still queued or running (finished jobs are deleted). */
  async function queuedCallbackWork(): Promise<number> {
    const client = new pg.Client({ connectionString: cluster.db.config.databaseUrl });
    await client.connect();
    try {
      const res = await client.query<{ n: string }>(`SELECT count(*) AS n FROM jobs WHERE queue = 'im.fanout' OR queue LIKE 'callbacks.rule.%'`);
      return Number(res.rows[0]?.n);
    } finally {
      await client.end();
    }
  }

  it('sends nothing to a rule’s old URL once the change of URL was answered', async () => {
    const old = await receiver();
    const moved = await receiver();
    const { target } = await warmThen('move', old, (t) => call(a.url, 'PUT', `${t.base}/callbacks/rules/main`, t.token, { url: moved.url }));
    const before = await perInstance();
    const texts = await burst(target, 'move-after', 300);
    await until(() => received(moved, 'move-after').length + received(old, 'move-after').length >= texts.length, 30_000, 'the burst');
    expect(received(old, 'move-after')).toEqual([]);
    expect(new Set(received(moved, 'move-after'))).toEqual(new Set(texts));
    const after = await perInstance();
    // Both instances delivered part of the burst.
    expect(after[0]! - before[0]!).toBeGreaterThan(0);
    expect(after[1]! - before[1]!).toBeGreaterThan(0);
  }, 120_000);

  it('signs every record with the rotated secret once the rotation was answered', async () => {
    const r = await receiver();
    const { target, changed } = await warmThen('rotate', r, (t) => call(a.url, 'POST', `${t.base}/callbacks/rules/main/secret`, t.token));
    const secret = changed.data.secret as string;
    const texts = await burst(target, 'rotate-after', 300);
    await until(() => received(r, 'rotate-after').length >= texts.length, 30_000, 'the burst');
    const nowSeconds = Math.floor(Date.now() / 1000);
    const bad = r.requests
      .filter((q) => textOf(q).startsWith('rotate-after'))
      .filter((q) => {
        const record = JSON.parse(q.body) as Json;
        const headers = q.headers as Record<string, string | undefined>;
        const security = verifyCallbackSecurity(record.callId as string, secret, record.timestamp as number, record.security as string);
        return !security || !verifyStandardWebhook(secret, headers, q.body, { nowSeconds });
      });
    expect(bad.map(textOf)).toEqual([]);
  }, 120_000);

  it('sends nothing for a rule once its disabling was answered', async () => {
    const r = await receiver();
    const { target } = await warmThen('off', r, (t) => call(a.url, 'PUT', `${t.base}/callbacks/rules/main`, t.token, { enabled: false }));
    await burst(target, 'off-after', 300);
    // Every fan-out and any callback job queued for the burst has run: whatever would be sent was.
    await until(async () => (await queuedCallbackWork()) === 0, 30_000, 'the burst’s jobs to finish');
    expect(received(r, 'off-after')).toEqual([]);
  }, 120_000);

  it('refuses an association’s old Client Secret on instance B once its rotation was answered on A', async () => {
    const username = 'rotate-admin@example.com';
    const tenant = await call(a.url, 'POST', '/api/tenants', root, { name: 'Rotate', edition: 'flagship', admin: { username, password: 'tenant-admin-pw', nickname: 'admin' } });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.entity.tenantId as number;
    const admin = (await call(a.url, 'POST', '/api/login', undefined, { username, password: 'tenant-admin-pw' })).body.entity.access_token as string;
    const created = await call(a.url, 'POST', `/api/tenants/${tenantId}/rest/channels`, admin, { name: 'shop', callback_url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(200);
    const assoc = created.body.entity as { clientId: string; clientSecret: string; postMessageUrl: string };
    let seq = 0;
    const post = async (origin: string, secret: string) => {
      const body = customerMessage({ from: 'customer-1', msg_id: `rot-${seq++}`, text: 'hi' });
      const signature = signSendMessage(secret, { method: 'POST', path: assoc.postMessageUrl, expires: -1, body });
      const res = await fetch(`${origin}${assoc.postMessageUrl}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; utf-8', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(assoc.clientId, signature) },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    };
    // B (and A) now hold the association, with the old secret, in their caches.
    expect(await post(b.url, assoc.clientSecret)).toBe(200);
    expect(await post(a.url, assoc.clientSecret)).toBe(200);
    const rotated = await call(a.url, 'POST', `/api/tenants/${tenantId}/rest/channels/${(created.body.entity as Json).channelId}/secret`, admin, { overlap_seconds: 0 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.entity.clientSecret as string;
    expect(fresh).not.toBe(assoc.clientSecret);
    expect(await post(b.url, assoc.clientSecret)).toBe(401);
    expect(await post(a.url, assoc.clientSecret)).toBe(401);
    expect(await post(b.url, fresh)).toBe(200);
  }, 60_000);

  it('refuses a deleted IM user’s token on instance B within moments of the deletion on A', async () => {
    const target = await imApp(a.url, root, 'deleted');
    const grant = await call(a.url, 'POST', `${target.base}/token`, undefined, { grant_type: 'password', username: 'alice', password: 'pw-123456' });
    const alice = grant.body.access_token as string;
    // B has checked the token just now, so it holds it as verified (for 10 s without a read).
    expect((await call(b.url, 'GET', `${target.base}/users/alice`, alice)).status).toBe(200);
    expect((await call(a.url, 'DELETE', `${target.base}/users/alice`, target.token)).status).toBe(200);
    const started = Date.now();
    await until(async () => (await call(b.url, 'GET', `${target.base}/users/alice`, alice)).status === 401, 2_000, 'B to refuse the token');
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 60_000);
});
