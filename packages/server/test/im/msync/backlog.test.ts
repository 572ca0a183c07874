/**
 * Long offline backlogs over msync, on both engines: a backlog of any size drains to a client that
 * pulls as the SDK does, every message exactly once; logins that never pull lose nothing (the
 * offline count stays whole, no message reports `delivered`); a busy group's backlog drains the
 * same; the real Web SDK receives a 2,500-message backlog whole; `delivered` means the client
 * acknowledged; live messages a closed socket never acknowledged reach the user's other open socket.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, PullingClient, type MsyncWorld } from '../../helpers/msync.js';
import type { ImApp } from '../../../src/modules/im/ports.js';

const BACKLOG = 2_500;
const GROUP_BACKLOG = 2_100;

describe.each(ENGINES)('msync backlogs on %s', (engine) => {
  let w: MsyncWorld;
  let app: ImApp;
  const clients: PullingClient[] = [];
  const login = async (user: string, options: { pull?: boolean; resource?: string } = {}) => {
    const client = await PullingClient.login(w, user, options);
    clients.push(client);
    return client;
  };
  const count = async (user: string) => (await w.api('GET', `/users/${user}/offline_msg_count`)).body.data[user] as number;
  const status = async (user: string, msgId: string) => (await w.api('GET', `/users/${user}/offline_msg_status/${msgId}`)).body.data[msgId] as string;
  /** `n` messages from `from` to `to` (a user, or a group with `chatType`), sent in parallel through the send service; their ids, ascending. */
  const backlog = async (n: number, from: string, to: string, chatType: 'chat' | 'groupchat' = 'chat') => {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 250) {
      const sends = Array.from({ length: Math.min(250, n - i) }, (_, j) =>
        w.t.app.parley.im.messages.send(app, { from, chatType, targets: [to], bodies: [{ type: 'txt', msg: `m${i + j}` }], ext: {}, source: 'sdk', requireMembership: false }),
      );
      for (const [accepted] of await Promise.all(sends)) ids.push(accepted!.msgId);
    }
    await w.t.app.parley.jobs.idle('im.fanout');
    // msg_ids grow with the order the sends were taken, which is the order a conversation is delivered in.
    return ids.sort((x, y) => Number(BigInt(x) - BigInt(y)));
  };
  const gone = (client: PullingClient) => waitFor(() => client.raw.closed, Boolean);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'bob', 'cat', 'dan', 'eve', 'fay']);
    app = await w.t.app.parley.im.apps.requireApp(w.im.org, w.im.name);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => w?.close());

  it(`drains ${BACKLOG} stored messages to a client that pulls as the SDK does, each exactly once, after logins that never pulled lost nothing`, async () => {
    const ids = await backlog(BACKLOG, 'ann', 'bob');
    expect(await count('bob')).toBe(BACKLOG);

    // Three logins that never pull: each is told, none is closed, nothing is lost or marked delivered.
    for (let i = 0; i < 3; i++) {
      const idle = await login('bob', { pull: false, resource: `idle_${i}` });
      expect(idle.raw.closed).toBeUndefined();
      idle.close();
      await gone(idle);
      await waitFor(() => w.online('bob'), (on) => !on);
      expect(await count('bob')).toBe(BACKLOG);
    }
    expect(await status('bob', ids[0]!)).toBe('undelivered');

    const bob = await login('bob');
    await waitFor(() => bob.received.length, (n) => n >= BACKLOG, 60_000);
    expect(bob.received).toHaveLength(BACKLOG);
    expect(bob.distinct()).toBe(BACKLOG);
    // One conversation, so in the order sent.
    expect(bob.received).toEqual(ids);
    expect(bob.raw.closed).toBeUndefined();
    // Acknowledged by the client's pulls: delivered, nothing left for a JSON socket.
    await waitFor(() => count('bob'), (n) => n === 0, 10_000);
    expect(await status('bob', ids[0]!)).toBe('delivered');
    expect(await status('bob', ids.at(-1)!)).toBe('delivered');
    bob.close();
    await gone(bob);
    const json = await SocketClient.connect(w.url, w.im.base, await w.token('bob'));
    await waitFor(() => w.online('bob'), (on) => on);
    expect(json.of('message')).toHaveLength(0);
    await json.close();
  });

  it(`drains a busy group's ${GROUP_BACKLOG}-message backlog to a member who was offline`, async () => {
    const groupId = (await w.api('POST', '/chatgroups', { groupname: 'busy', public: true, owner: 'cat', members: ['dan'] })).body.data.groupid as string;
    const ids = await backlog(GROUP_BACKLOG, 'cat', groupId, 'groupchat');
    expect(await count('dan')).toBe(GROUP_BACKLOG);
    const dan = await login('dan');
    await waitFor(() => dan.received.length, (n) => n >= GROUP_BACKLOG, 60_000);
    expect(dan.received).toEqual(ids);
    await waitFor(() => count('dan'), (n) => n === 0, 10_000);
  });

  it('the real Web SDK receives a whole backlog, each message once', async () => {
    const ids = await backlog(BACKLOG, 'ann', 'eve');
    const eve = await w.login('eve');
    await waitFor(() => eve.messages().length, (n) => n >= BACKLOG, 90_000);
    const got = eve.messages().map((m) => String(m.id));
    expect(new Set(got).size).toBe(BACKLOG);
    expect(got).toHaveLength(BACKLOG);
    expect(new Set(got)).toEqual(new Set(ids));
    await waitFor(() => count('eve'), (n) => n === 0, 10_000);
    assertNoForeignRequests();
    eve.close();
  });

  it('delivered means acknowledged: a pull without the batch key acknowledges nothing, and a closed socket leaves it stored', async () => {
    const [id] = await backlog(1, 'ann', 'fay');
    const fay = await login('fay', { pull: false });
    const queue = { appKey: w.appKey, name: 'ann', domain: 'easemob.com' };
    const pull = (key?: string) => fay.pullOnce(queue, key);
    const first = await pull();
    expect(first.metas?.map((m) => String(m.id))).toEqual([id]);
    // Pulled again without the key: handed out again, still undelivered.
    const again = await pull();
    expect(again.metas?.map((m) => String(m.id))).toEqual([id]);
    expect(await status('fay', id!)).toBe('undelivered');
    fay.close();
    await gone(fay);
    expect(await status('fay', id!)).toBe('undelivered');
    expect(await count('fay')).toBe(1);
    // The next login takes it and acknowledges it with the key.
    const next = await login('fay');
    await waitFor(() => next.received, (r) => r.includes(id!));
    await waitFor(() => status('fay', id!), (s) => s === 'delivered', 10_000);
  });

  it("live messages a closed socket never acknowledged reach the user's other open socket at once", async () => {
    // bob is online on a socket that never pulls; a message reaches it live (nothing is stored).
    const silent = await login('bob', { pull: false, resource: 'silent' });
    await waitFor(() => w.online('bob'), (on) => on);
    const sent = await w.api('POST', '/messages/users', { from: 'ann', to: ['bob'], type: 'txt', body: { msg: 'never pulled' } });
    const msgId = sent.body.data.bob as string;
    await waitFor(() => silent.raw.of(2 /* NOTICE */).length, (n) => n === 1);
    await w.t.app.parley.jobs.idle('im.fanout');
    // A second socket opens afterwards: nothing was stored, so it has nothing yet.
    const json = await SocketClient.connect(w.url, w.im.base, await w.token('bob'));
    await waitFor(() => json.of('message').length, (n) => n === 0);
    silent.close();
    await gone(silent);
    // Given back by the silent socket: stored, and drained to the open one without a reconnect.
    const got = await json.waitText('never pulled');
    expect(got.msg_id).toBe(msgId);
    await waitFor(() => count('bob'), (n) => n === 0);
    expect(json.of('message')).toHaveLength(1);
    await json.close();
  });
});
