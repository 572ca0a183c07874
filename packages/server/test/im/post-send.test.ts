/**
 * The fan-out's contract with the post-send seam: the jobs the hook decides for each accepted
 * message (seeing its offline receivers) are written by the fan-out's transaction and handed to
 * `committed` once per message; never for a moderated message; and a re-run of a finished fan-out
 * job changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageEvent, PostSendHook } from '../../src/modules/im/post-send.js';
import type { FanoutPayload } from '../../src/modules/im/commit.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('IM post-send hook and fan-out idempotency on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  const events: MessageEvent[] = [];
  /** What jobsFor was shown, by msg_id: `committed` reports the ones written. */
  const shown = new Map<string, MessageEvent>();
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);

  beforeAll(async () => {
    const hook: PostSendHook = {
      async jobsFor(batch) {
        for (const event of batch) shown.set(event.msgId, event);
        return batch.map((event) => [{ queue: 'test.post-send', payload: { msgId: event.msgId } }]);
      },
      committed(jobs) {
        for (const job of jobs) events.push(shown.get((job.payload as { msgId: string }).msgId)!);
      },
    };
    t = await createTestApp(engine, { deps: { postSend: hook } });
    im = await createImApp(t.app);
    url = await listen(t.app);
    await createUsers(t.app, im, 'ann', 'ben', 'cat', 'dan');
  });
  afterAll(async () => t?.close());

  const settle = () => t.app.parley.jobs.idle('im.fanout');

  it('writes the jobs of each message once, deciding them with its offline receivers, in the fan-out transaction', async () => {
    const ben = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'ben'));
    await waitFor(() => t.app.parley.im.presence.size(), (n) => n === 1);
    await waitFor(async () => (await t.app.parley.im.presence.onlineAmong((await t.app.parley.im.apps.requireApp(im.org, im.name)).id, ['ben'])).size, (n) => n === 1);

    const one = await api('POST', '/messages/users', { from: 'ann', to: ['ben', 'cat'], type: 'txt', body: { msg: 'to two' } });
    const group = await api('POST', '/chatgroups', { groupname: 'g', public: true, owner: 'ann', members: ['ben', 'cat', 'dan'] });
    const groupId = group.body.data.groupid as string;
    await api('POST', '/messages/chatgroups', { from: 'ann', to: [groupId], type: 'txt', body: { msg: 'to group' } });
    const room = await api('POST', '/chatrooms', { name: 'r', description: 'd', owner: 'ann', members: ['ben', 'cat'] });
    const roomId = room.body.data.id as string;
    await api('POST', '/messages/chatrooms', { from: 'ann', to: [roomId], type: 'txt', body: { msg: 'to room' } });
    await api('PUT', '/moderation/sensitive-words', { words: ['blocked'] });
    expect((await api('POST', '/messages/users', { from: 'ann', to: ['cat'], type: 'txt', body: { msg: 'blocked words' } })).status).toBe(403);
    await settle();

    const byText = (text: string) => events.filter((e) => e.payload.bodies[0]?.msg === text);
    const toBen = byText('to two').find((e) => e.to === 'ben');
    const toCat = byText('to two').find((e) => e.to === 'cat');
    expect(toBen).toMatchObject({ msgId: one.body.data.ben, chatType: 'chat', from: 'ann', source: 'rest', appkey: 'acme#shop', offlineReceivers: [] });
    expect(toCat?.offlineReceivers).toEqual(['cat']);
    const [groupEvent] = byText('to group');
    expect(groupEvent).toMatchObject({ chatType: 'groupchat', groupId, to: groupId });
    expect([...(groupEvent?.offlineReceivers ?? [])].sort()).toEqual(['cat', 'dan']);
    const [roomEvent] = byText('to room');
    expect(roomEvent).toMatchObject({ chatType: 'chatroom', groupId: roomId, offlineReceivers: [] });
    expect(byText('blocked words')).toHaveLength(0);
    expect(events).toHaveLength(4);
    // Written by the fan-out's transactions (no worker takes this queue).
    expect(await t.app.parley.jobs.depth('test.post-send')).toBe(4);
    await ben.close();
  });

  it('does nothing when a finished fan-out job runs again (e.g. after a crash before it was deleted)', async () => {
    const sent = await api('POST', '/messages/users', { from: 'ann', to: ['dan'], type: 'txt', body: { msg: 'once only' } });
    await settle();
    const msgId = sent.body.data.dan as string;
    const appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    const before = events.length;
    const offlineRows = () =>
      t.app.parley.storage.db.selectFrom('im_offline').select('msg_id').where('username', '=', 'dan').where('msg_id', '=', Number(msgId)).execute();
    expect(await offlineRows()).toHaveLength(1);

    const result = await t.app.parley.im.fanout.handle({ id: 0, queue: 'im.fanout', payload: { messages: [{ appId, msgId }] } satisfies FanoutPayload, attempts: 1, orderingKey: null, runAt: 0, createdAt: 0 });
    expect(result).toEqual({ status: 'done' });
    expect(events.length).toBe(before);
    expect(await offlineRows()).toHaveLength(1);
  });
});
