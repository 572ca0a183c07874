/**
 * Live delivery across instances (PostgreSQL + Redis, child processes), with the fan-out on
 * another instance than the send: who got a message live is recorded with it, so the fan-out
 * instance leaves those receivers to the sender's instance (it never pushes them a second copy,
 * even one the holder's memory would have dropped) and reaches a receiver who came online after
 * the send looked (never a miss). A and B run no workers; C, started after the sends, runs the
 * fan-out jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient } from '../helpers/im.js';
import type { ParleyProcess } from '../helpers/process.js';
import { call, imApp, rootToken, startCluster, until, type Cluster, type ImTarget } from './cluster.js';

const metric = async (p: ParleyProcess, name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(await (await fetch(`${p.url}/metrics`)).text())?.[1] ?? 0);

describe.runIf(ENGINES.includes('postgres'))('live delivery across instances on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let a: ParleyProcess;
  let b: ParleyProcess;
  let target: ImTarget;
  const sockets: SocketClient[] = [];
  const userToken = async (origin: string, user: string) => (await call(origin, 'POST', `${target.base}/token`, undefined, { grant_type: 'password', username: user, password: 'pw-123456' })).body.access_token as string;
  const connect = async (p: ParleyProcess, user: string) => {
    const socket = await SocketClient.connect(p.url, target.base, await userToken(p.url, user));
    sockets.push(socket);
    await until(async () => (await cluster.redis.zcard(`${cluster.prefix}presence:${target.appId}:${user}`)) > 0, 5_000, `${user} online`);
    return socket;
  };

  beforeAll(async () => {
    cluster = await startCluster({ PARLEY_IM_RATE_LIMIT: '1000000', PARLEY_WORKERS: 'false' });
    [a, b] = await Promise.all([cluster.start(), cluster.start()]);
    target = await imApp(a.url, await rootToken(a.url), 'live');
    await call(a.url, 'POST', `${target.base}/users`, target.token, { username: 'carol', password: 'pw-123456' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await cluster?.close();
  }, 30_000);

  it('the fan-out on a third instance skips the receivers pushed live from the first, and reaches one who came online since', async () => {
    const bob = await connect(b, 'bob');
    const group = (await call(a.url, 'POST', `${target.base}/chatgroups`, target.token, { groupname: 'g', public: true, owner: 'alice', members: ['bob', 'carol'] })).body.data.groupid as string;
    const texts = Array.from({ length: 10 }, (_, i) => `to bob ${i}`);
    for (const msg of texts) expect((await call(a.url, 'POST', `${target.base}/messages/users`, target.token, { from: 'alice', to: ['bob'], type: 'txt', body: { msg } })).status).toBe(200);
    expect((await call(a.url, 'POST', `${target.base}/messages/chatgroups`, target.token, { from: 'alice', to: [group], type: 'txt', body: { msg: 'to the group' } })).status).toBe(200);
    // Pushed live from A, through Redis, to bob on B.
    for (const msg of [...texts, 'to the group']) await bob.waitText(msg, 10_000);
    expect(await metric(a, 'parley_im_pushed_total{path="live"}')).toBe(11);

    // carol comes online on B after the sends looked: nothing was pushed to her live, and the
    // fan-out jobs have not run yet (no instance runs workers).
    const carol = await connect(b, 'carol');
    const c = await cluster.start({ PARLEY_WORKERS: 'true' });
    const got = await carol.waitText('to the group', 15_000);
    expect(got.from).toBe('alice');

    // C pushed only to carol: the messages A recorded as pushed live to bob were left to A.
    await until(async () => (await call(c.url, 'GET', `${target.base}/users/bob/offline_msg_count`, target.token)).body.data?.bob === 0, 10_000, 'fan-out done');
    expect(await metric(c, 'parley_im_pushed_total{path="fanout"}')).toBe(1);
    expect(bob.of('message').map((f) => f.payload.bodies[0]?.msg).sort()).toEqual([...texts, 'to the group'].sort());
    expect(carol.of('message')).toHaveLength(1);
  }, 60_000);
});
