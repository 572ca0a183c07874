/**
 * A user online on one socket who opens another: a message sent while the new socket is still
 * receiving its stored messages reaches the first at once and the new one right after its stored
 * messages, once each, on both engines. Without it the new device would never get that message
 * (the user was online, so nothing was stored for them).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('a second device of an online user on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let appId: string;
  const sockets: SocketClient[] = [];
  const connect = async (username: string) => {
    const socket = await SocketClient.connect(url, im.base, await userToken(t.app, im, username));
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'ann', 'ben');
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await t?.close();
  });

  it('gets a message sent while it was receiving its stored messages, after them, once', async () => {
    const first = await connect('ben');
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, ['ben']), (s) => s.has('ben'));

    // The new socket's drain of stored messages is held open until the message is sent.
    const drains = t.app.parley.im.drains;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const realConnect = drains.connect.bind(drains);
    const connectSpy = vi.spyOn(drains, 'connect').mockImplementationOnce((app, user, connection, lease) =>
      realConnect(app, user, { ...connection, room: async () => (await held, connection.room()) }, lease),
    );
    const second = await connect('ben');
    await waitFor(() => connectSpy.mock.calls.length, (n) => n === 1);

    const sent = await call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: 'ann', to: ['ben'], type: 'txt', body: { msg: 'while syncing' } });
    expect(sent.status).toBe(200);
    const msgId = sent.body.data.ben as string;
    await first.waitText('while syncing');
    await t.app.parley.jobs.idle('im.fanout');
    expect(second.of('message')).toHaveLength(0);

    release();
    const got = await second.waitText('while syncing');
    expect(got).toMatchObject({ msg_id: msgId, from: 'ann' });
    connectSpy.mockRestore();
    // Nothing was stored for ben, and neither socket got a second copy.
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/users/ben/offline_msg_count`)).body.data).toEqual({ ben: 0 });
    await t.app.parley.jobs.idle('im.fanout');
    expect(first.of('message')).toHaveLength(1);
    expect(second.of('message')).toHaveLength(1);
  });
});
