/**
 * The live push and the fan-out, on both engines, with no latch between them: who gets a message
 * live is recorded with it before it commits, so the fan-out (which runs at once, whatever the
 * push is doing) leaves exactly those receivers to the push and delivers to everyone else; a push
 * that fails or finds a receiver gone has that receiver's copy stored and drained, never lost and
 * never doubled; the sender gets its 200 whatever happens to the push.
 */
import type { ImServerFrame } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe.each(ENGINES)('IM live push and fan-out on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let appId: string;
  const sockets: SocketClient[] = [];
  const api = (path: string, payload: unknown) => call(t.app, im.adminToken, 'POST', `${im.base}${path}`, payload);
  const connect = async (username: string) => {
    const socket = await SocketClient.connect(url, im.base, await userToken(t.app, im, username));
    sockets.push(socket);
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, [username]), (s) => s.has(username));
    return socket;
  };
  const row = (msgId: string) => t.app.parley.storage.db.selectFrom('im_messages').select(['live', 'live_by']).where('msg_id', '=', Number(msgId)).executeTakeFirstOrThrow();
  const pendingFanout = (msgId: string) => t.app.parley.storage.db.selectFrom('im_pending_fanout').select('msg_id').where('msg_id', '=', Number(msgId)).execute();

  /** Holds the live push of messages to `user` (the presence call that carries it) until the gate is settled. */
  function holdPushTo(user: string) {
    const presence = t.app.parley.im.presence;
    const real = presence.deliver.bind(presence);
    const gate = deferred<void>();
    const spy = vi.spyOn(presence, 'deliver').mockImplementation(async (app: string, users: readonly string[], frame: ImServerFrame) => {
      if (frame.op === 'message' && users.includes(user)) await gate.promise;
      return real(app, users, frame);
    });
    return { gate, spy };
  }

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'ann', 'ben', 'cat', 'dan', 'eve');
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await Promise.all(sockets.map((s) => s.close()));
    await t?.close();
  });

  it('records the live receivers with the message; the fan-out runs at once and leaves them to the push', async () => {
    const ben = await connect('ben');
    // Created before the hold: its group events reach ben's socket through the same presence call.
    const group = (await call(t.app, im.adminToken, 'POST', `${im.base}/chatgroups`, { groupname: 'g', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid as string;
    const held = holdPushTo('ben');
    const sending = api('/messages/chatgroups', { from: 'ann', to: [group], type: 'txt', body: { msg: 'held push' } });
    await waitFor(() => held.spy.mock.calls.some(([, users]) => users.includes('ben')), Boolean);
    const msgId = String((await t.app.parley.storage.db.selectFrom('im_messages').select('msg_id').where('receiver', '=', group).executeTakeFirstOrThrow()).msg_id);
    // The fan-out did not wait for the held push: it ran, stored the group message for cat
    // (offline), and did not push to ben, whom the record names.
    await t.app.parley.jobs.idle('im.fanout');
    expect(await row(msgId)).toMatchObject({ live: JSON.stringify(['ben']), live_by: t.app.parley.membership.id });
    expect(await pendingFanout(msgId)).toEqual([]);
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/users/cat/offline_msg_count`)).body.data).toEqual({ cat: 1 });
    expect(ben.of('message')).toHaveLength(0);
    held.gate.resolve();
    expect((await sending).status).toBe(200);
    await ben.waitText('held push');
    held.spy.mockRestore();
    await t.app.parley.jobs.idle('im.fanout');
    expect(ben.of('message')).toHaveLength(1);
  });

  it('a push that fails still answers 200; the receiver gets the message stored and drained, once', async () => {
    const dan = await connect('dan');
    const deliver = vi.spyOn(t.app.parley.im.presence, 'deliver').mockImplementationOnce(() => Promise.reject(new Error('socket write failed')));
    const answer = await api('/messages/users', { from: 'ann', to: ['dan'], type: 'txt', body: { msg: 'write fails' } });
    expect(answer.status).toBe(200);
    expect(deliver).toHaveBeenCalledTimes(1);
    deliver.mockRestore();
    const frame = await dan.waitText('write fails');
    expect(frame.msg_id).toBe(answer.body.data.dan);
    await t.app.parley.jobs.idle('im.fanout');
    expect(dan.of('message')).toHaveLength(1);
    await waitFor(async () => (await call(t.app, im.adminToken, 'GET', `${im.base}/users/dan/offline_msg_status/${answer.body.data.dan}`)).body.data?.[answer.body.data.dan], (s) => s === 'delivered');
  });

  it('a receiver who came online after the send looked is reached by the fan-out, once', async () => {
    const eve = await connect('eve');
    // The send's look finds eve offline (she comes online just after): nobody is recorded live.
    const look = vi.spyOn(t.app.parley.im.presence, 'onlineAmong').mockImplementationOnce(async () => new Set());
    const answer = await api('/messages/users', { from: 'ann', to: ['eve'], type: 'txt', body: { msg: 'once for eve' } });
    look.mockRestore();
    expect(await row(answer.body.data.eve)).toMatchObject({ live: null, live_by: null });
    // The fan-out finds her online and pushes it; nothing is stored for her.
    await eve.waitText('once for eve');
    await t.app.parley.jobs.idle('im.fanout');
    expect(eve.of('message')).toHaveLength(1);
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/users/eve/offline_msg_count`)).body.data).toEqual({ eve: 0 });
  });
});
