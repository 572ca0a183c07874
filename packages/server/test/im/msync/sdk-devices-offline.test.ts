/**
 * A user's own devices offline at the moment of a send, recall or edit, with the real Easemob Web SDK
 * (each device a client with a `deviceId` of its own, so its resource is the same at every login) and
 * the JSON socket (`resource`), on both engines: the send reaches the user's other device at its next
 * login, in order with the user's other stored messages and as their own message, and never the
 * device that sent it, not even at its next login; each of several devices offline at the moment gets
 * it at its own next login, once, and so does a recall; nothing is stored for a user with no other device;
 * recalls and edits reach the other device later the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)("a user's own devices offline, with the Easemob Web SDK on %s", (engine) => {
  let w: MsyncWorld;
  let ben: SdkClient;
  let groupId: string;
  const ownRows = async (username: string) =>
    Number(
      (
        await w.t.app.parley.storage.db
          .selectFrom('im_offline')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('username', '=', username)
          .where('sent_from', 'is not', null)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const keptEvents = async (username: string) =>
    Number((await w.t.app.parley.storage.db.selectFrom('im_pending_events').select((eb) => eb.fn.countAll().as('n')).where('username', '=', username).executeTakeFirstOrThrow()).n);
  const connections = (user: string, n: number) => waitFor(() => w.t.app.parley.im.presence.connections(w.appId, user), (c) => c === n);
  /** Waits until the login of `user`'s device whose resource ends with `suffix` is recorded (it is written beside the login). */
  const recorded = (user: string, suffix: string) =>
    waitFor(
      async () => (await w.t.app.parley.storage.db.selectFrom('im_devices').select('resource').where('username', '=', user).execute()).some((d) => d.resource.endsWith(suffix)),
      Boolean,
    );
  /** Logs a device in (its resource is the same at every login of `deviceId`). */
  const device = async (user: string, deviceId: string) => {
    const client = w.sdk({ deviceId });
    await client.open(user, { pwd: PASSWORD });
    await recorded(user, `_${deviceId}`);
    return client;
  };
  /** A message from ben that `client` receives: what it had to receive before it has arrived. */
  const probe = async (client: SdkClient, to: string, text: string) => {
    const sent = await ben.send({ type: 'txt', chatType: 'singleChat', to, msg: text });
    await arrived(client, sent.serverMsgId);
  };
  const send = (client: SdkClient, options: Record<string, unknown>) => client.send({ type: 'txt', chatType: 'singleChat', ...options });
  /** Waits until `client` has received the message `msgId`. */
  const arrived = (client: SdkClient, msgId: string) => waitFor(() => client.messages().some((m) => m.id === msgId), Boolean);
  /** The user's phone, laptop and tablet each log in once (all three recorded); then only the phone stays online. */
  const phoneWithTwoAway = async (user: string): Promise<SdkClient> => {
    const phone = await device(user, 'phone');
    const laptop = await device(user, 'laptop');
    const tablet = await device(user, 'tablet');
    await connections(user, 3);
    laptop.close();
    tablet.close();
    await connections(user, 1);
    return phone;
  };

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gil', 'hal']);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben'] })).body.data.groupid;
    ben = await w.login('ben');
  });
  afterAll(async () => {
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('a send reaches the other device at its next login, in order, and never the sending device', async () => {
    const phone = await device('ann', 'phone');
    const laptop = await device('ann', 'laptop');
    await connections('ann', 2);
    laptop.close();
    await connections('ann', 1);

    const first = await send(phone, { to: 'ben', msg: 'sent while the laptop was away', ext: { k: 1 } });
    const inGroup = await phone.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'team, from the phone' });
    expect(await ownRows('ann')).toBe(2);

    // The phone logs out and in again: it never gets its own messages back.
    phone.close();
    await connections('ann', 0);
    const phoneAgain = await device('ann', 'phone');
    await probe(phoneAgain, 'ann', 'probe for the phone');
    const phoneIds = phoneAgain.messages().map((m) => m.id);
    expect(phoneIds).not.toContain(first.serverMsgId);
    expect(phoneIds).not.toContain(inGroup.serverMsgId);
    phoneAgain.close();
    await connections('ann', 0);

    // While ann is offline: a message to her, and her REST send with sync_device (no sending device).
    const toAnn = await send(ben, { to: 'ann', msg: 'ben to ann' });
    const rest = await w.api('POST', '/messages/users', { from: 'ann', to: ['ben'], type: 'txt', body: { msg: 'rest, synced' }, sync_device: true });
    const restId = rest.body.data.ben as string;

    // The laptop's next login gets them, in order with ann's other stored messages, as her own.
    const laptopAgain = await device('ann', 'laptop');
    const chat = [first.serverMsgId, toAnn.serverMsgId, restId];
    await waitFor(() => laptopAgain.messages().filter((m) => [...chat, inGroup.serverMsgId].includes(m.id)), (got) => got.length === 4);
    const got = laptopAgain.messages();
    expect(got.find((m) => m.id === first.serverMsgId)).toMatchObject({ from: 'ann', to: 'ben', chatType: 'singleChat', msg: 'sent while the laptop was away', ext: { k: 1 } });
    expect(got.find((m) => m.id === inGroup.serverMsgId)).toMatchObject({ from: 'ann', to: groupId, chatType: 'groupChat', msg: 'team, from the phone' });
    expect(got.find((m) => m.id === restId)).toMatchObject({ from: 'ann', to: 'ben', msg: 'rest, synced' });
    expect(got.map((m) => m.id).filter((id) => chat.includes(id))).toEqual(chat);
    laptopAgain.close();
    await connections('ann', 0);
  });

  it('each of two devices offline at the moment gets the send at its own next login, once', async () => {
    const phone = await phoneWithTwoAway('fay');

    const sent = await send(phone, { to: 'ben', msg: 'for both of my other devices' });
    const laptopAgain = await device('fay', 'laptop');
    await arrived(laptopAgain, sent.serverMsgId);
    // Taken by the laptop, still kept for the tablet.
    const status = async () => (await w.t.app.parley.storage.db.selectFrom('im_offline').select('status').where('username', '=', 'fay').where('msg_id', '=', Number(sent.serverMsgId)).executeTakeFirstOrThrow()).status;
    expect(await status()).toBe('undelivered');
    laptopAgain.close();
    await connections('fay', 1);

    const tabletAgain = await device('fay', 'tablet');
    await arrived(tabletAgain, sent.serverMsgId);
    expect(tabletAgain.messages().find((m) => m.id === sent.serverMsgId)).toMatchObject({ from: 'fay', to: 'ben', msg: 'for both of my other devices' });
    // Every other device took it: delivered.
    await waitFor(status, (s) => s === 'delivered');

    // The laptop took it once: its next login does not get it again.
    tabletAgain.close();
    const laptopThird = await device('fay', 'laptop');
    await probe(laptopThird, 'fay', 'probe for the laptop');
    expect(laptopThird.messages().map((m) => m.id)).not.toContain(sent.serverMsgId);
    laptopThird.close();
    phone.close();
    await connections('fay', 0);
  });

  it('nothing is stored for a user with no other device, nor when another device of theirs is online; once it is away, it is', async () => {
    const only = await device('cat', 'only');
    await send(only, { to: 'ben', msg: 'cat has one device' });
    await only.conn.recallMessage({ mid: (await send(only, { to: 'ben', msg: 'recalled, one device' })).serverMsgId, to: 'ben', chatType: 'singleChat' });
    expect(await ownRows('cat')).toBe(0);
    expect(await keptEvents('cat')).toBe(0);

    const other = await device('cat', 'other');
    await connections('cat', 2);
    const live = await send(only, { to: 'ben', msg: 'the other device is online' });
    await waitFor(() => other.messages().some((m) => m.id === live.serverMsgId), Boolean);
    expect(await ownRows('cat')).toBe(0);
    // Once the other device is away, the next send is kept for it.
    other.close();
    await connections('cat', 1);
    await send(only, { to: 'ben', msg: 'the other device is away' });
    expect(await ownRows('cat')).toBe(1);
    only.close();
    await connections('cat', 0);
  });

  it('a recall and an edit reach the other device at its next login, never the device that made them', async () => {
    const phone = await device('dan', 'phone');
    const laptop = await device('dan', 'laptop');
    await connections('dan', 2);
    const edited = await send(phone, { to: 'ben', msg: 'helo' });
    const recalled = await send(phone, { to: 'ben', msg: 'oops' });
    await waitFor(() => laptop.messages().filter((m) => m.id === edited.serverMsgId || m.id === recalled.serverMsgId), (got) => got.length === 2);
    laptop.close();
    await connections('dan', 1);

    const message = phone.sdk.default?.message ?? phone.sdk.message;
    await phone.conn.modifyMessage({ messageId: edited.serverMsgId, modifiedMessage: message.create({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'hello' }) });
    await phone.conn.recallMessage({ mid: recalled.serverMsgId, to: 'ben', chatType: 'singleChat' });
    phone.close();
    await connections('dan', 0);

    const phoneAgain = await device('dan', 'phone');
    await probe(phoneAgain, 'dan', 'probe for dan');
    expect(phoneAgain.of('modified')).toHaveLength(0);
    expect(phoneAgain.of('recall')).toHaveLength(0);
    phoneAgain.close();
    await connections('dan', 0);

    const laptopAgain = await device('dan', 'laptop');
    expect(await waitFor(() => laptopAgain.of('modified').find((m) => m.id === edited.serverMsgId), Boolean)).toMatchObject({ msg: 'hello', from: 'dan', to: 'ben' });
    expect(await waitFor(() => laptopAgain.of('recall').find((r) => r.mid === recalled.serverMsgId), Boolean)).toMatchObject({ from: 'dan', to: 'ben' });
    laptopAgain.close();
    await connections('dan', 0);
  });

  it('a recall reaches each of two devices offline at the moment at its own next login, once; then it is forgotten', async () => {
    const phone = await device('gil', 'phone');
    const laptop = await device('gil', 'laptop');
    const tablet = await device('gil', 'tablet');
    await connections('gil', 3);
    const recalled = await send(phone, { to: 'ben', msg: 'oops' });
    for (const other of [laptop, tablet]) await arrived(other, recalled.serverMsgId);
    laptop.close();
    tablet.close();
    await connections('gil', 1);
    await phone.conn.recallMessage({ mid: recalled.serverMsgId, to: 'ben', chatType: 'singleChat' });
    expect(await keptEvents('gil')).toBe(1);

    const laptopAgain = await device('gil', 'laptop');
    expect(await waitFor(() => laptopAgain.of('recall').find((r) => r.mid === recalled.serverMsgId), Boolean)).toMatchObject({ from: 'gil', to: 'ben' });
    laptopAgain.close();
    await connections('gil', 1);
    // Taken by the laptop, still kept for the tablet.
    expect(await keptEvents('gil')).toBe(1);

    const tabletAgain = await device('gil', 'tablet');
    expect(await waitFor(() => tabletAgain.of('recall').find((r) => r.mid === recalled.serverMsgId), Boolean)).toMatchObject({ from: 'gil', to: 'ben' });
    await waitFor(() => keptEvents('gil'), (n) => n === 0);
    tabletAgain.close();

    const laptopThird = await device('gil', 'laptop');
    await probe(laptopThird, 'gil', 'probe for the laptop');
    expect(laptopThird.of('recall')).toHaveLength(0);
    laptopThird.close();
    phone.close();
    await connections('gil', 0);
  });

  it('a recall of an own copy one offline device took and another did not reaches the device that had it', async () => {
    const phone = await phoneWithTwoAway('hal');
    const sent = await send(phone, { to: 'ben', msg: 'oops' });
    const laptopAgain = await device('hal', 'laptop');
    await arrived(laptopAgain, sent.serverMsgId);
    laptopAgain.close();
    await connections('hal', 1);

    // The copy is still kept for the tablet, but the laptop had it: its recall is kept for the laptop.
    await phone.conn.recallMessage({ mid: sent.serverMsgId, to: 'ben', chatType: 'singleChat' });
    const laptopThird = await device('hal', 'laptop');
    expect(await waitFor(() => laptopThird.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'hal', to: 'ben' });
    laptopThird.close();
    phone.close();
    await connections('hal', 0);
  });

  it('JSON sockets named with `resource` are devices: the other one gets the send at its next connection, the sending one never', async () => {
    const token = await w.token('eve');
    const desk = await SocketClient.connect(w.url, w.im.base, token, 'desk');
    const tablet = await SocketClient.connect(w.url, w.im.base, token, 'tablet');
    await connections('eve', 2);
    for (const name of ['desk', 'tablet']) await recorded('eve', name);
    await tablet.close();
    await connections('eve', 1);
    const ack = (await desk.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'ben', bodies: [{ type: 'txt', msg: 'from the desk' }] })) as { msg_id: string };
    expect(await ownRows('eve')).toBe(1);

    await desk.close();
    const deskAgain = await SocketClient.connect(w.url, w.im.base, token, 'desk');
    const toEve = await send(ben, { to: 'eve', msg: 'probe for the desk' });
    await waitFor(() => deskAgain.of('message').some((f) => f.msg_id === toEve.serverMsgId), Boolean);
    expect(deskAgain.of('message').some((f) => f.msg_id === ack.msg_id)).toBe(false);
    await deskAgain.close();

    const tabletAgain = await SocketClient.connect(w.url, w.im.base, token, 'tablet');
    const stored = await tabletAgain.waitText('from the desk');
    expect(stored).toMatchObject({ msg_id: ack.msg_id, from: 'eve', to: 'ben', chat_type: 'chat', offline: true });
    await tabletAgain.close();

    await expect(SocketClient.connect(w.url, w.im.base, token, 'not a name!')).rejects.toThrow('socket refused: 400');
  });
});
