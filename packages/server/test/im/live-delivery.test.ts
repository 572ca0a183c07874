/**
 * The live push and the fan-out job: a job claimed while the push of its message is under way
 * waits for that push and no longer, with no timer (the clock is fake and never moves here): when
 * the push fails, the sender still gets its 200 and the job goes ahead at once and delivers the
 * message itself, also to receivers the failed push had chosen; when it succeeds, the job does
 * not push a second copy.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

/** Rejects when `promise` has not settled within `ms` of real time. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe.each(ENGINES)('IM live push and fan-out job on %s', (engine) => {
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
  const msgIdTo = async (username: string) =>
    String((await t.app.parley.storage.db.selectFrom('im_messages').select('msg_id').where('receiver', '=', username).executeTakeFirstOrThrow()).msg_id);

  /**
   * Holds the live push of the next message at its presence lookup until the test settles the
   * returned gate, and lets the fan-out job be claimed meanwhile. The job has passed the latch once
   * it looks the app up (`appkeyOf`), which it must not do while the push is held.
   */
  async function holdLivePush() {
    const presence = t.app.parley.im.presence;
    const gate = deferred<Set<string>>();
    const lookup = vi.spyOn(presence, 'onlineAmong').mockImplementationOnce(() => gate.promise);
    const planned = vi.spyOn(t.app.parley.im.apps, 'appkeyOf');
    return { gate, lookup, planned, restore: () => (lookup.mockRestore(), planned.mockRestore()) };
  }

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'ann', 'ben', 'cat', 'dan');
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await t?.close();
  });

  it('goes ahead as soon as the live push fails, and delivers the message itself', async () => {
    const ben = await connect('ben');
    const held = await holdLivePush();
    const sending = api('/messages/users', { from: 'ann', to: ['ben'], type: 'txt', body: { msg: 'push fails' } });
    await waitFor(() => held.lookup.mock.calls.length, (n) => n === 1);
    // Time for the worker to claim the job: it must wait for the push under way.
    await new Promise((r) => setTimeout(r, 150));
    expect(held.planned).not.toHaveBeenCalled();
    expect(ben.of('message')).toHaveLength(0);

    held.gate.reject(new Error('presence unreachable'));
    // The message is committed: the sender gets its id, not an error.
    const answer = await sending;
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ ben: await msgIdTo('ben') });
    // No clock moves and no timer: the release in the live step's `finally` is what lets the job run.
    await within(t.app.parley.jobs.idle('im.fanout'), 3000);
    held.restore();
    const [frame] = await ben.waitFrames('message', 1);
    expect(frame).toMatchObject({ msg_id: await msgIdTo('ben'), payload: { bodies: [{ msg: 'push fails' }] } });
    expect(ben.of('message')).toHaveLength(1);
  });

  it('a push that fails after choosing its receivers answers 200, and the job still delivers to them', async () => {
    const dan = await connect('dan');
    const presence = t.app.parley.im.presence;
    const deliver = vi.spyOn(presence, 'deliver').mockImplementationOnce(() => Promise.reject(new Error('socket write failed')));
    const answer = await api('/messages/users', { from: 'ann', to: ['dan'], type: 'txt', body: { msg: 'write fails' } });
    expect(answer.status).toBe(200);
    expect(deliver).toHaveBeenCalledTimes(1);
    deliver.mockRestore();
    await within(t.app.parley.jobs.idle('im.fanout'), 3000);
    const [frame] = await dan.waitFrames('message', 1);
    expect(frame).toMatchObject({ msg_id: answer.body.data.dan, payload: { bodies: [{ msg: 'write fails' }] } });
  });

  it('skips the receiver the held push reached, so the message arrives once', async () => {
    const cat = await connect('cat');
    const held = await holdLivePush();
    const sending = api('/messages/users', { from: 'ann', to: ['cat'], type: 'txt', body: { msg: 'push succeeds' } });
    await waitFor(() => held.lookup.mock.calls.length, (n) => n === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(held.planned).not.toHaveBeenCalled();

    held.gate.resolve(new Set(['cat']));
    expect((await sending).status).toBe(200);
    await within(t.app.parley.jobs.idle('im.fanout'), 3000);
    expect(held.planned).toHaveBeenCalled();
    held.restore();
    await cat.waitText('push succeeds');
    expect(cat.of('message')).toHaveLength(1);
  });
});
