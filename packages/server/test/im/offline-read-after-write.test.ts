/**
 * Read-after-write of the offline store: once a send answered 200, `offline_msg_status` and
 * `offline_msg_count` show the message, although the fan-out job that stores it runs later.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('offline reads right after a send on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let receiver: CallbackReceiver | undefined;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const txt = (msg: string) => ({ type: 'txt', body: { msg } });
  const status = async (username: string, msgId: string) => {
    const res = await api('GET', `/users/${username}/offline_msg_status/${msgId}`);
    return res.status === 200 ? (res.body.data[msgId] as string) : res.status;
  };
  const count = async (username: string) => (await api('GET', `/users/${username}/offline_msg_count`)).body.data[username] as number;

  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    receiver = undefined;
  });

  it('shows one-to-one and group messages whose fan-out job has not run (no workers)', async () => {
    // An API-only instance: the fan-out jobs wait for a worker that never comes.
    t = await createTestApp(engine, { env: { PARLEY_WORKERS: 'false' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
    const group = await api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'alice', members: ['bob', 'carol'] });
    const groupId = group.body.data.groupid as string;

    const direct: string[] = [];
    for (const n of [1, 2, 3]) {
      const sent = await api('POST', '/messages/users', { from: 'alice', to: ['carol'], ...txt(`m${n}`) });
      expect(sent.status).toBe(200);
      direct.push(sent.body.data.carol as string);
      expect(await status('carol', direct[n - 1] as string)).toBe('undelivered');
      expect(await count('carol')).toBe(n);
    }
    const toGroup = await api('POST', '/messages/chatgroups', { from: 'alice', to: [groupId], ...txt('to the team') });
    const groupMsg = toGroup.body.data[groupId] as string;
    expect(await status('bob', groupMsg)).toBe('undelivered');
    expect(await status('carol', groupMsg)).toBe('undelivered');
    expect(await count('carol')).toBe(4);
    // The sender is not a receiver of their own group message; an unknown id stays 404.
    expect(await status('alice', groupMsg)).toBe(404);
    expect(await status('carol', '123')).toBe(404);
    // Reading again stores nothing twice.
    expect(await count('carol')).toBe(4);
  });

  it('shows every message at once on an app with a callback rule', async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'carol');
    receiver = await CallbackReceiver.start();
    expect((await api('PUT', '/callbacks/service', { enabled: true, store_failed: true })).status).toBe(200);
    expect((await api('POST', '/callbacks/rules', { name: 'main_1', url: receiver.url })).status).toBe(200);

    for (let n = 1; n <= 5; n++) {
      const sent = await api('POST', '/messages/users', { from: 'alice', to: ['carol'], ...txt(`m${n}`) });
      expect(sent.status).toBe(200);
      expect(await status('carol', sent.body.data.carol as string)).toBe('undelivered');
      expect(await count('carol')).toBe(n);
    }
    await t.app.parley.jobs.idle('im.fanout');
    expect(await count('carol')).toBe(5);
  });
});
