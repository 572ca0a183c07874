/**
 * Multi-device and online-only messages with the real Easemob Web SDK, on both engines: a user's
 * send on one device reaches their other devices (a second SDK connection and a JSON socket) as
 * their own message, never the device that sent it, and is never stored for them; a message sent
 * with `deliverOnlineOnly` (msync `routetype` ONLINE) reaches the receivers online and is never
 * stored for the others, so they do not get it when they log in. `agora-chat` devices sync and send
 * online-only typing indicators the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallbackReceiver } from '../../helpers/callback-receiver.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('multi-device and online-only messages with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann1: SdkClient;
  let ann2: SdkClient;
  let ben: SdkClient;
  let annJson: SocketClient;
  let groupId: string;
  let receiver: CallbackReceiver;
  const offlineRows = async (column: 'username' | 'msg_id', value: string) =>
    Number((await w.t.app.parley.storage.db.selectFrom('im_offline').select((eb) => eb.fn.countAll().as('n')).where(column, '=', value as never).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve', 'fay']);
    receiver = await CallbackReceiver.start();
    await w.api('PUT', '/callbacks/service', { enabled: true });
    expect((await w.api('POST', '/callbacks/rules', { name: 'all_sdk', url: receiver.url, sources: ['sdk'] })).status).toBe(200);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid;
    [ann1, ann2, ben] = await Promise.all([w.login('ann'), w.login('ann'), w.login('ben')]);
    annJson = await SocketClient.connect(w.url, w.im.base, await w.token('ann'));
    await waitFor(() => w.t.app.parley.im.presence.connections(w.appId, 'ann'), (n) => n === 3);
    for (const u of ['ann', 'ben']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await annJson?.close();
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it("a one-to-one send reaches the receiver and the sender's other devices, not the sending one", async () => {
    const ack = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'from device 1', ext: { k: 1 } });
    await waitFor(() => ben.messages().some((m) => m.id === ack.serverMsgId), Boolean);
    const mine = await waitFor(() => ann2.messages().find((m) => m.id === ack.serverMsgId), Boolean);
    expect(mine).toMatchObject({ from: 'ann', to: 'ben', chatType: 'singleChat', msg: 'from device 1', ext: { k: 1 } });
    const json = await annJson.waitText('from device 1');
    expect(json).toMatchObject({ msg_id: ack.serverMsgId, from: 'ann', to: 'ben', chat_type: 'chat' });
    expect(json).not.toHaveProperty('device');
    // The sending device never gets its own message back; a probe from ben shows it had the chance.
    const probe = await ben.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'probe 1' });
    await waitFor(() => ann1.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ann1.messages().some((m) => m.id === ack.serverMsgId)).toBe(false);
    expect(await offlineRows('username', 'ann')).toBe(0);
  });

  it('a message synced to the sender\'s devices is called back once, like any message', async () => {
    const ack = await ann2.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'called back once' });
    await waitFor(() => ann1.messages().some((m) => m.id === ack.serverMsgId), Boolean);
    const hits = () => receiver.requests.filter((r) => (JSON.parse(r.body) as { msg_id?: string }).msg_id === ack.serverMsgId);
    // Not a speed test: the first callback can take several seconds on a loaded machine.
    await waitFor(hits, (h) => h.length >= 1, 20_000);
    await w.t.app.parley.jobs.idle('im.fanout');
    const probe = await ann2.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'probe cb' });
    await waitFor(() => receiver.requests.some((r) => r.body.includes(probe.serverMsgId)), Boolean, 10_000);
    expect(hits()).toHaveLength(1);
    expect(JSON.parse(hits()[0]!.body)).toMatchObject({ from: 'ann', to: 'ben', chat_type: 'chat' });
  });

  it("a send on the JSON socket reaches the user's SDK devices", async () => {
    const ack = await annJson.request({ op: 'send', id: 'j1', chat_type: 'chat', to: 'ben', bodies: [{ type: 'txt', msg: 'from the json socket' }] });
    expect(ack).toMatchObject({ op: 'ack', id: 'j1' });
    const msgId = (ack as { msg_id: string }).msg_id;
    for (const device of [ann1, ann2]) {
      expect(await waitFor(() => device.messages().find((m) => m.id === msgId), Boolean)).toMatchObject({ from: 'ann', to: 'ben', msg: 'from the json socket' });
    }
    expect(annJson.of('message').some((f) => f.msg_id === msgId)).toBe(false);
  });

  it("a group send reaches the members and the sender's other devices", async () => {
    const ack = await ann2.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'team, from device 2' });
    await waitFor(() => ben.messages().some((m) => m.id === ack.serverMsgId), Boolean);
    expect(await waitFor(() => ann1.messages().find((m) => m.id === ack.serverMsgId), Boolean)).toMatchObject({ from: 'ann', to: groupId, chatType: 'groupChat' });
    await annJson.waitText('team, from device 2');
    const probe = await ben.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'probe 2' });
    await waitFor(() => ann2.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ann2.messages().some((m) => m.id === ack.serverMsgId)).toBe(false);
  });

  it("Easemob's REST fields: sync_device reaches every device of the sender, ROUTE_ONLINE is never stored", async () => {
    const synced = await w.api('POST', '/messages/users', { from: 'ann', to: ['ben'], type: 'txt', body: { msg: 'rest, synced' }, sync_device: true });
    expect(synced.status).toBe(200);
    const msgId = synced.body.data.ben as string;
    for (const device of [ann1, ann2]) await waitFor(() => device.messages().some((m) => m.id === msgId), Boolean);
    await annJson.waitText('rest, synced');
    const online = await w.api('POST', '/messages/users', { from: 'ben', to: ['cat'], type: 'cmd', body: { action: 'typing' }, routetype: 'ROUTE_ONLINE' });
    await w.t.app.parley.jobs.idle('im.fanout');
    expect(await offlineRows('msg_id', online.body.data.cat as string)).toBe(0);
  });

  it('deliverOnlineOnly reaches the online receiver and is never stored for an offline one', async () => {
    expect(await w.online('cat')).toBe(false);
    const typing = await ben.send({ type: 'cmd', chatType: 'singleChat', to: 'ann', action: 'typing', deliverOnlineOnly: true });
    const toCat = await ben.send({ type: 'cmd', chatType: 'singleChat', to: 'cat', action: 'typing', deliverOnlineOnly: true });
    const inGroup = await ben.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'online only', deliverOnlineOnly: true });
    const kept = await ben.send({ type: 'txt', chatType: 'singleChat', to: 'cat', msg: 'stored for cat' });
    expect(await waitFor(() => ann1.messages().find((m) => m.id === typing.serverMsgId), Boolean)).toMatchObject({ type: 'cmd', action: 'typing' });
    await waitFor(() => ann1.messages().some((m) => m.id === inGroup.serverMsgId), Boolean);
    await w.t.app.parley.jobs.idle('im.fanout');
    for (const id of [typing, toCat, inGroup].map((a) => a.serverMsgId)) expect(await offlineRows('msg_id', id)).toBe(0);
    expect(await offlineRows('msg_id', kept.serverMsgId)).toBe(1);

    const cat = await w.login('cat');
    await waitFor(() => cat.messages().some((m) => m.id === kept.serverMsgId), Boolean);
    const got = cat.messages().map((m) => m.id);
    expect(got).not.toContain(toCat.serverMsgId);
    expect(got).not.toContain(inGroup.serverMsgId);
  });

  it("agora-chat: a send reaches the sender's other device, not the sending one", async () => {
    const [dan1, dan2, eve] = await Promise.all([w.login('dan', 'agora-chat'), w.login('dan', 'agora-chat'), w.login('eve', 'agora-chat')]);
    const ack = await dan1.send({ type: 'txt', chatType: 'singleChat', to: 'eve', msg: 'agora, from device 1' });
    await waitFor(() => eve.messages().some((m) => m.id === ack.serverMsgId), Boolean);
    expect(await waitFor(() => dan2.messages().find((m) => m.id === ack.serverMsgId), Boolean)).toMatchObject({ from: 'dan', to: 'eve', chatType: 'singleChat', msg: 'agora, from device 1' });
    const probe = await eve.send({ type: 'txt', chatType: 'singleChat', to: 'dan', msg: 'agora probe' });
    await waitFor(() => dan1.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(dan1.messages().some((m) => m.id === ack.serverMsgId)).toBe(false);
  });

  it('agora-chat: a typing indicator (deliverOnlineOnly) reaches the online receiver and is never stored for an offline one', async () => {
    expect(await w.online('fay')).toBe(false);
    const [dan, eve] = await Promise.all([w.login('dan', 'agora-chat'), w.login('eve', 'agora-chat')]);
    const typing = await eve.send({ type: 'cmd', chatType: 'singleChat', to: 'dan', action: 'typing', deliverOnlineOnly: true });
    const toFay = await eve.send({ type: 'cmd', chatType: 'singleChat', to: 'fay', action: 'typing', deliverOnlineOnly: true });
    const kept = await eve.send({ type: 'txt', chatType: 'singleChat', to: 'fay', msg: 'stored for fay' });
    expect(await waitFor(() => dan.messages().find((m) => m.id === typing.serverMsgId), Boolean)).toMatchObject({ type: 'cmd', action: 'typing', from: 'eve' });
    await w.t.app.parley.jobs.idle('im.fanout');
    expect(await offlineRows('msg_id', toFay.serverMsgId)).toBe(0);
    expect(await offlineRows('msg_id', kept.serverMsgId)).toBe(1);
  });
});
