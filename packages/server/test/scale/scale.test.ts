/**
 * Scale-out (issue 7): two or three Parley processes on one PostgreSQL database and one Redis.
 * Callbacks are delivered exactly once while instances live and at least once when one is
 * killed; the ban window is shared; a socket on one instance gets messages sent via another;
 * rate limits hold across instances; a Redis outage loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParleyProcess } from '../helpers/process.js';
import { SocketClient } from '../helpers/im.js';
import { call, CountingReceiver, imApp, metricSum, pooled, rootToken, sendText, startCluster, until, type Cluster } from './cluster.js';

/** Callbacks of one rule in flight per instance: the most a kill -9 can make repeat. */
const RULE_CONCURRENCY = 32;

describe('several instances on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let a: ParleyProcess;
  let b: ParleyProcess;
  let root: string;
  const receivers: CountingReceiver[] = [];
  const receiver = async () => {
    const r = await CountingReceiver.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    cluster = await startCluster({
      // A short attempt timeout keeps the lease (2 attempts + 10 s) short for the kill -9 case. Not
      // shorter than 3 s: an attempt that outlives its timeout is retried, and the receiver then
      // sees it twice (at-least-once), which the exactly-once case below would count. On a busy
      // CI machine 1 s was once exceeded.
      PARLEY_CALLBACK_TIMEOUT_MS: '3000',
      PARLEY_CALLBACK_RULE_CONCURRENCY: String(RULE_CONCURRENCY),
      PARLEY_IM_RATE_LIMIT: '1000000',
      PARLEY_API_RATE_LIMIT: '60',
    });
    [a, b] = await Promise.all([cluster.start(), cluster.start()]);
    root = await rootToken(a.url);
  }, 60_000);

  afterAll(async () => {
    for (const r of receivers) await r.close();
    await cluster?.close();
  }, 30_000);

  it('delivers 2,000 callbacks accepted by two instances exactly once, with both instances delivering', async () => {
    const r = await receiver();
    const target = await imApp(a.url, root, 'bulk', r.url);
    const texts = Array.from({ length: 2000 }, (_, i) => `bulk-${i}`);
    const statuses: number[] = [];
    await pooled(texts.length, 32, async (i) => {
      statuses.push(await sendText(i % 2 === 0 ? a.url : b.url, target, texts[i] as string));
    });
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    await until(() => r.tally(texts).delivered === texts.length, 60_000, '2,000 callbacks');
    // Let any stray second copy arrive before counting (the queues are idle by then).
    await until(async () => (await metricSum(a.url, 'parley_callback_records_total')) + (await metricSum(b.url, 'parley_callback_records_total')) >= 2000, 10_000, 'records counted');
    const { duplicates } = r.tally(texts);
    expect(duplicates).toBe(0);
    expect(r.total).toBe(2000);
    // The work was shared: each instance finished some of the records.
    expect(await metricSum(a.url, 'parley_callback_records_total')).toBeGreaterThan(0);
    expect(await metricSum(b.url, 'parley_callback_records_total')).toBeGreaterThan(0);
  }, 120_000);

  it('bans a rule once when two instances each see part of the 90 failures, visible from both', async () => {
    const r = await receiver();
    r.status = 500;
    const target = await imApp(a.url, root, 'failing', r.url);
    const bansBefore = (await metricSum(a.url, 'parley_callback_rule_bans_total')) + (await metricSum(b.url, 'parley_callback_rule_bans_total'));
    // 60 records × 2 attempts: the 90th failure bans the rule; the rest are given up.
    await pooled(60, 8, async (i) => {
      expect(await sendText(i % 2 === 0 ? a.url : b.url, target, `fail-${i}`)).toBe(200);
    });
    const rule = async (origin: string) => (await call(origin, 'GET', `${target.base}/callbacks/rules/main`, target.token)).body.data;
    await until(async () => (await rule(a.url)).status === 'banned', 30_000, 'the ban');
    const fromA = await rule(a.url);
    const fromB = await rule(b.url);
    expect(fromA).toMatchObject({ status: 'banned', ban_count: 1 });
    expect(fromB).toMatchObject({ status: 'banned', ban_count: 1, banned_until: fromA.banned_until });
    const attemptsA = await metricSum(a.url, 'parley_callback_attempt_duration_seconds_count');
    const attemptsB = await metricSum(b.url, 'parley_callback_attempt_duration_seconds_count');
    const bansAfter = (await metricSum(a.url, 'parley_callback_rule_bans_total')) + (await metricSum(b.url, 'parley_callback_rule_bans_total'));
    // One ban in total across the instances, though both counted failures.
    expect(bansAfter - bansBefore).toBe(1);
    expect(attemptsA).toBeGreaterThan(0);
    expect(attemptsB).toBeGreaterThan(0);
    // In-process windows would each stay under 90: the shared window is what banned it.
    expect(r.total).toBeGreaterThanOrEqual(90);
    expect(r.total).toBeLessThan(120);
  }, 60_000);

  it('pushes a message sent via REST on instance A to a socket on instance B, and does not also store it', async () => {
    const target = await imApp(a.url, root, 'chat');
    const tokenRes = await call(a.url, 'POST', `${target.base}/token`, undefined, { grant_type: 'password', username: 'bob', password: 'pw-123456' });
    const bobToken = tokenRes.body.access_token as string;
    const onB = await SocketClient.connect(b.url, target.base, bobToken);
    try {
      // B announces bob in Redis once his socket is ready.
      await until(async () => (await cluster.redis.zcard(`${cluster.prefix}presence:${target.appId}:bob`)) > 0, 5_000, 'presence');
      expect(await sendText(a.url, target, 'hello across')).toBe(200);
      const frame = await onB.waitText('hello across');
      expect(frame.offline).toBeUndefined();
    } finally {
      await onB.close();
    }
    // Reconnecting (to A this time): nothing was stored for bob, so only the new message arrives.
    await until(async () => (await cluster.redis.zcard(`${cluster.prefix}presence:${target.appId}:bob`)) === 0, 5_000, 'presence gone');
    const onA = await SocketClient.connect(a.url, target.base, bobToken);
    try {
      await until(async () => (await cluster.redis.zcard(`${cluster.prefix}presence:${target.appId}:bob`)) > 0, 5_000, 'presence');
      expect(await sendText(b.url, target, 'second')).toBe(200);
      await onA.waitText('second');
      expect(onA.of('message').map((f) => f.payload.bodies[0]?.msg)).toEqual(['second']);
    } finally {
      await onA.close();
    }
  }, 30_000);

  it('loses no accepted message while Redis is cut and restored during traffic', async () => {
    const r = await receiver();
    const target = await imApp(a.url, root, 'outage', r.url);
    const accepted: string[] = [];
    let refused = 0;
    let i = 0;
    let stop = false;
    const traffic = pooled(8, 8, async () => {
      while (!stop) {
        const text = `outage-${i++}`;
        const status = await sendText(i % 2 === 0 ? a.url : b.url, target, text);
        if (status === 200) accepted.push(text);
        else {
          expect(status).toBe(503);
          refused++;
        }
      }
    });
    await until(() => accepted.length >= 100, 20_000, 'traffic before the outage');
    await cluster.redisProxy.cut();
    await until(async () => (await fetch(`${a.url}/readyz`)).status === 503, 10_000, 'readyz failing');
    const during = await call(b.url, 'POST', `${target.base}/messages/users`, target.token, { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'x' } });
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ error: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // an outage of real length
    await cluster.redisProxy.restore();
    await until(async () => (await fetch(`${a.url}/readyz`)).status === 200 && (await fetch(`${b.url}/readyz`)).status === 200, 20_000, 'recovery');
    const countAfter = accepted.length;
    await until(() => accepted.length >= countAfter + 100, 20_000, 'traffic after the outage');
    stop = true;
    await traffic;
    await until(() => r.tally(accepted).delivered === accepted.length, 60_000, 'every accepted message delivered');
    console.log(`Redis outage: ${accepted.length} accepted, ${refused} refused with 503, duplicates ${r.tally(accepted).duplicates}`);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('holds the API rate limit across instances', async () => {
    const token = root;
    let okCount = 0;
    let sent = 0;
    const limited = new Set<string>();
    while (limited.size < 2 && sent < 200) {
      const origin = sent % 2 === 0 ? a.url : b.url;
      const res = await call(origin, 'GET', '/api/tenants', token);
      sent++;
      if (res.status === 200) okCount++;
      else {
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBeTruthy();
        limited.add(origin);
      }
    }
    // 60 per minute in total (less what earlier tests spent on /api), not 60 per instance.
    expect(limited.size).toBe(2);
    expect(okCount).toBeLessThanOrEqual(60);
    expect(okCount).toBeGreaterThan(40);
  }, 30_000);

  it('delivers every callback when an instance is killed with kill -9 mid-delivery (duplicates counted)', async () => {
    const r = await receiver();
    r.delayMs = 100;
    const target = await imApp(b.url, root, 'crash', r.url);
    const texts = Array.from({ length: 600 }, (_, i) => `crash-${i}`);
    await pooled(texts.length, 32, async (i) => {
      expect(await sendText(i % 2 === 0 ? a.url : b.url, target, texts[i] as string)).toBe(200);
    });
    await until(() => r.total >= 100, 20_000, 'deliveries under way');
    await a.kill9();
    const killedAt = r.total;
    // B takes over A's leased jobs once A's heartbeat has been silent for 3 s (failover.test.ts times it).
    await until(() => r.tally(texts).delivered === texts.length, 60_000, 'every callback after the crash');
    const { duplicates } = r.tally(texts);
    console.log(`kill -9: ${texts.length} callbacks, ${killedAt} received before the kill, ${duplicates} duplicates (at-least-once)`);
    // Only attempts in flight at the kill can repeat: at most one rule's concurrency per instance.
    expect(duplicates).toBeLessThanOrEqual(RULE_CONCURRENCY);
  }, 120_000);
});
