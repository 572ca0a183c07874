/**
 * Offline delivery, presence and interoperability with the real Easemob Web SDK, on both engines:
 * messages stored while a user was offline arrive on reconnect, per conversation and in order,
 * between the SDK's offline-sync start and finish events; a user online over msync (on /ws or
 * /websocket) counts as online for everyone (nothing is stored for them), as over the JSON
 * socket; a message sent over REST, the JSON socket or msync reaches a receiver on any of them
 * with the same content. An `agora-chat` user gets their stored messages on reconnect the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ImMessageFrame } from '@parley/protocol';
import { assertNoForeignRequests } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('msync offline, presence and interop with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let groupId: string;
  const sockets: SocketClient[] = [];
  const jsonSocket = async (user: string) => {
    const socket = await SocketClient.connect(w.url, w.im.base, await w.token(user));
    sockets.push(socket);
    await waitFor(() => w.online(user), (on) => on);
    return socket;
  };
  const rest = (from: string, to: string, msg: string, ext: Record<string, unknown> = {}) =>
    w.api('POST', '/messages/users', { from, to: [to], type: 'txt', body: { msg }, ext }).then((r) => r.body.data[to] as string);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'eve', 'fay']);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'cat', members: ['eve'] })).body.data.groupid;
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('delivers stored messages on reconnect, per conversation in order, between sync start and finish', async () => {
    const eve = w.sdk();
    await eve.open('eve', { pwd: PASSWORD });
    eve.close();
    await waitFor(() => w.online('eve'), (on) => !on);
    const ann = await w.login('ann');
    const fromAnn = [(await ann.send({ type: 'txt', chatType: 'singleChat', to: 'eve', msg: 'a1' })).serverMsgId, await rest('ann', 'eve', 'a2')];
    const fromGroup: string[] = [];
    for (const msg of ['g1', 'g2']) {
      fromGroup.push((await w.api('POST', '/messages/chatgroups', { from: 'cat', to: [groupId], type: 'txt', body: { msg } })).body.data[groupId] as string);
    }
    fromAnn.push((await ann.send({ type: 'txt', chatType: 'singleChat', to: 'eve', msg: 'a3' })).serverMsgId);
    await waitFor(async () => Number((await w.t.app.parley.storage.db.selectFrom('im_offline').select((eb) => eb.fn.countAll().as('n')).where('username', '=', 'eve').executeTakeFirstOrThrow()).n), (n) => n === 5);

    // The same connection object logs in again (same resource), as an app does.
    const before = eve.events.length;
    await eve.open('eve', { pwd: PASSWORD });
    await waitFor(() => eve.events.slice(before).some((e) => e.event === 'syncFinish'), Boolean);
    // A group notice kept from the first login comes again if that login closed before acknowledging it.
    const events = eve.events
      .slice(before)
      .filter((e) => e.event !== 'groupEvent')
      .map((e) => (e.event === 'text' ? `${e.data.id}` : e.event));
    expect(events[0]).toBe('connected');
    expect(events[1]).toBe('syncStart');
    expect(events.at(-1)).toBe('syncFinish');
    const ids = events.filter((e) => /^\d+$/.test(e));
    expect(ids.filter((id) => fromAnn.includes(id))).toEqual(fromAnn);
    expect(ids.filter((id) => fromGroup.includes(id))).toEqual(fromGroup);
    expect(ids).toHaveLength(5);
    expect(eve.messages().find((m) => m.id === fromGroup[0])).toMatchObject({ chatType: 'groupChat', to: groupId, msg: 'g1' });
    ann.close();
  });

  it('agora-chat: stored messages arrive on reconnect, in order, between sync start and finish', async () => {
    const fay = w.sdk({ sdkPackage: 'agora-chat' });
    await fay.open('fay', { pwd: PASSWORD });
    fay.close();
    await waitFor(() => w.online('fay'), (on) => !on);
    const stored = [await rest('ann', 'fay', 'f1'), await rest('ben', 'fay', 'f2'), await rest('ann', 'fay', 'f3')];
    const before = fay.events.length;
    await fay.open('fay', { pwd: PASSWORD });
    await waitFor(() => fay.events.slice(before).some((e) => e.event === 'syncFinish'), Boolean);
    const events = fay.events.slice(before).map((e) => (e.event === 'text' ? `${e.data.id}` : e.event));
    expect(events.slice(0, 2)).toEqual(['connected', 'syncStart']);
    expect(events.at(-1)).toBe('syncFinish');
    const ids = events.filter((e) => /^\d+$/.test(e));
    expect(ids.filter((id) => id !== stored[1])).toEqual([stored[0], stored[2]]);
    expect(ids.sort()).toEqual([...stored].sort());
    expect(fay.messages().find((m) => m.id === stored[1])).toMatchObject({ from: 'ben', to: 'fay', msg: 'f2' });
    fay.close();
  });

  it('a login with nothing stored fires neither sync event', async () => {
    const ben = await w.login('ben');
    await waitFor(() => w.online('ben'), (on) => on);
    expect(ben.of('syncStart')).toEqual([]);
    ben.close();
    await waitFor(() => w.online('ben'), (on) => !on);
  });

  it('one presence for every socket kind: online over msync (/ws or /websocket) or the JSON socket means nothing is stored', async () => {
    const ben = await w.login('ben');
    await waitFor(() => w.online('ben'), (on) => on);
    const id = await rest('ann', 'ben', 'live over rest');
    await waitFor(() => ben.messages().some((m) => m.id === id), Boolean);
    const offline = await w.t.app.parley.storage.db.selectFrom('im_offline').select('msg_id').where('username', '=', 'ben').execute();
    expect(offline).toEqual([]);
    ben.close();
    await waitFor(() => w.online('ben'), (on) => !on);
    // Online over the JSON socket counts the same.
    const json = await jsonSocket('ben');
    expect(await w.online('ben')).toBe(true);
    await json.close();
    await waitFor(() => w.online('ben'), (on) => !on);
    // And over msync on /websocket.
    const other = w.sdk({ path: '/websocket' });
    await other.open('ben', { pwd: PASSWORD });
    await waitFor(() => w.online('ben'), (on) => on);
    const second = await rest('ann', 'ben', 'live over /websocket');
    await waitFor(() => other.messages().some((m) => m.id === second), Boolean);
    expect(await w.t.app.parley.storage.db.selectFrom('im_offline').select('msg_id').where('username', '=', 'ben').execute()).toEqual([]);
    other.close();
    await waitFor(() => w.online('ben'), (on) => !on);
  });

  it('REST, JSON socket and msync reach each other with the same content', async () => {
    const ext = { n: 1, o: { deep: [true] }, s: 'x' };
    const annSdk = await w.login('ann');
    const benJson = await jsonSocket('ben');
    await waitFor(() => w.online('ann'), (on) => on);

    // msync -> JSON socket
    const sent = await annSdk.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'sdk to json', ext });
    const [frame] = (await benJson.waitFrames('message', 1)) as ImMessageFrame[];
    expect(frame).toMatchObject({ msg_id: sent.serverMsgId, from: 'ann', to: 'ben', chat_type: 'chat', payload: { bodies: [{ type: 'txt', msg: 'sdk to json' }], ext } });

    // JSON socket -> msync
    const ack = await benJson.request({ op: 'send', id: 'j1', chat_type: 'chat', to: 'ann', bodies: [{ type: 'loc', lat: 1, lng: 2, addr: 'Here' }], ext });
    const jsonId = (ack as { msg_id: string }).msg_id;
    await waitFor(() => annSdk.messages().some((m) => m.id === jsonId), Boolean);
    expect(annSdk.messages().find((m) => m.id === jsonId)).toMatchObject({ type: 'loc', from: 'ben', lat: 1, lng: 2, addr: 'Here', ext });

    // REST -> msync
    const restId = await rest('ben', 'ann', 'rest to sdk', ext);
    await waitFor(() => annSdk.messages().some((m) => m.id === restId), Boolean);
    expect(annSdk.messages().find((m) => m.id === restId)).toMatchObject({ type: 'txt', msg: 'rest to sdk', from: 'ben', ext });

    // msync -> msync is in sdk-messaging.test.ts; msync -> REST history: the stored row is the same message.
    annSdk.close();
    await benJson.close();
  });
});
