/**
 * The msync gateway across instances (PostgreSQL + Redis, child processes): a message sent on one
 * instance, by the Easemob Web SDK or over REST, reaches an SDK connected to another, live, and
 * nothing is stored for it; presence is shared through Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SdkClient } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';
import type { ParleyProcess } from '../helpers/process.js';
import { imApp, rootToken, sendText, startCluster, until, type Cluster, type ImTarget } from './cluster.js';

describe.runIf(ENGINES.includes('postgres'))('msync across two instances on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let a: ParleyProcess;
  let b: ParleyProcess;
  let target: ImTarget;
  const clients: SdkClient[] = [];
  const sdk = (p: ParleyProcess) => {
    const client = new SdkClient({ baseUrl: p.url, appKey: 'scale#msync', randomDevice: true });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    cluster = await startCluster({ PARLEY_IM_RATE_LIMIT: '1000000' });
    [a, b] = await Promise.all([cluster.start(), cluster.start()]);
    target = await imApp(a.url, await rootToken(a.url), 'msync');
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await cluster?.close();
  }, 30_000);

  it('delivers SDK and REST messages sent on instance A to an SDK on instance B, live', async () => {
    const bob = sdk(b);
    await bob.open('bob', { pwd: 'pw-123456' });
    const alice = sdk(a);
    await alice.open('alice', { pwd: 'pw-123456' });
    // B announces bob in Redis once his connection is ready.
    await until(async () => (await cluster.redis.zcard(`${cluster.prefix}presence:${target.appId}:bob`)) > 0, 5_000, 'presence');

    const sent = await alice.send({ type: 'txt', chatType: 'singleChat', to: 'bob', msg: 'across', ext: { n: 1 } });
    await waitFor(() => bob.messages().some((m) => m.id === sent.serverMsgId), Boolean, 10_000);
    expect(bob.messages().find((m) => m.id === sent.serverMsgId)).toMatchObject({ from: 'alice', msg: 'across', ext: { n: 1 } });

    expect(await sendText(a.url, target, 'rest across')).toBe(200);
    await waitFor(() => bob.messages().some((m) => m.msg === 'rest across'), Boolean, 10_000);

    const offline = await fetch(`${a.url}${target.base}/users/bob/offline_msg_count`, { headers: { authorization: `Bearer ${target.token}` } });
    expect(((await offline.json()) as { data: Record<string, number> }).data.bob).toBe(0);
    assertNoForeignRequests();
  }, 30_000);
});
