/**
 * Sending and receiving with the real Easemob Web SDK through the msync gateway, on both engines:
 * every body type one-to-one with typed `ext`, group and chat-room messages, each acknowledged with
 * Parley's msg_id; a sensitive word is the SDK's MESSAGE_INCLUDE_ILLEGAL_CONTENT; post-send
 * callbacks fire with `source: sdk` to a real receiver; two quick messages both arrive live.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallbackReceiver } from '../../helpers/callback-receiver.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const EXT = { n: 7, big: 2 ** 40, f: 1.5, s: 'text', yes: true, no: false, obj: { a: [1, 'x'] }, nul: null };
const CDN = 'https://cdn.example';

/** One spec per body type: what the SDK is given, what Parley stores, what the receiver sees. */
const SPECS = [
  { give: { type: 'txt', msg: 'hello' }, stored: { type: 'txt', msg: 'hello' }, seen: { type: 'txt', msg: 'hello' } },
  { give: { type: 'img', url: `${CDN}/a.png`, width: 10, height: 20 }, stored: { type: 'img', url: `${CDN}/a.png`, filename: 'a.png' }, seen: { type: 'img' } },
  { give: { type: 'audio', filename: 'a.amr', length: 3, body: { url: `${CDN}/a.amr`, type: 'audio', filename: 'a.amr' } }, stored: { type: 'audio', url: `${CDN}/a.amr`, filename: 'a.amr' }, seen: { type: 'audio', filename: 'a.amr' } },
  { give: { type: 'video', filename: 'v.mp4', body: { url: `${CDN}/v.mp4`, type: 'video', filename: 'v.mp4' } }, stored: { type: 'video', url: `${CDN}/v.mp4`, filename: 'v.mp4' }, seen: { type: 'video', filename: 'v.mp4' } },
  { give: { type: 'file', filename: 'f.pdf', body: { url: `${CDN}/f.pdf`, type: 'file', filename: 'f.pdf' } }, stored: { type: 'file', url: `${CDN}/f.pdf`, filename: 'f.pdf' }, seen: { type: 'file', filename: 'f.pdf' } },
  { give: { type: 'loc', lat: 1.5, lng: -2.5, addr: 'Main St', buildingName: '' }, stored: { type: 'loc', lat: 1.5, lng: -2.5, addr: 'Main St' }, seen: { type: 'loc', lat: 1.5, lng: -2.5, addr: 'Main St' } },
  { give: { type: 'cmd', action: 'refresh' }, stored: { type: 'cmd', action: 'refresh' }, seen: { type: 'cmd', action: 'refresh' } },
  { give: { type: 'custom', customEvent: 'gift', customExts: { a: '1' } }, stored: { type: 'custom', customEvent: 'gift', customExts: { a: '1' } }, seen: { type: 'custom', customEvent: 'gift', customExts: { a: '1' } } },
] as const;

describe.each(ENGINES)('msync messaging with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  let ann: SdkClient;
  let ben: SdkClient;
  let cat: SdkClient;
  let groupId: string;
  let roomId: string;
  const stored = async (msgId: string) => {
    const row = await w.t.app.parley.storage.db.selectFrom('im_messages').select(['payload', 'source', 'chat_type']).where('msg_id', '=', msgId as never).executeTakeFirst();
    return row && { ...row, payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload };
  };
  const offlineRows = async (column: 'username' | 'msg_id', value: string) =>
    Number((await w.t.app.parley.storage.db.selectFrom('im_offline').select((eb) => eb.fn.countAll().as('n')).where(column, '=', value as never).executeTakeFirstOrThrow()).n);
  /** Waits for `client` (user `name`) to get `msgId`; on a timeout, says where the message is and what the client saw. */
  const arrives = async (client: SdkClient, name: string, msgId: string) => {
    try {
      await waitFor(() => client.messages().some((m) => m.id === msgId), Boolean);
    } catch (error) {
      const offline = await w.t.app.parley.storage.db.selectFrom('im_offline').select(['status']).where('username', '=', name).where('msg_id', '=', msgId as never).execute();
      const events = client.events.map((e) => `${e.event}:${e.data?.id ?? e.data?.operation ?? ''}`);
      const where = { online: await w.online(name), offline: offline.map((r) => r.status), stored: Boolean(await stored(msgId)), events };
      throw new Error(`${name} did not get ${msgId} within 5 s: ${JSON.stringify(where)}`, { cause: error });
    }
  };

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan']);
    receiver = await CallbackReceiver.start();
    await w.api('PUT', '/callbacks/service', { enabled: true });
    expect((await w.api('POST', '/callbacks/rules', { name: 'sdk_only', url: receiver.url, sources: ['sdk'], chat_types: ['chat', 'groupchat'] })).status).toBe(200);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid;
    roomId = (await w.api('POST', '/chatrooms', { name: 'lobby', description: 'all', owner: 'dan' })).body.data.id;
    [ann, ben, cat] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cat')]);
    for (const u of ['ann', 'ben', 'cat']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('sends every body type one-to-one with ext, acked with the msg_id the receiver and the store see', async () => {
    const before = ben.messages().length;
    const acks = [];
    for (const spec of SPECS) acks.push(await ann.send({ chatType: 'singleChat', to: 'ben', ext: EXT, ...spec.give }));
    const got = await waitFor(() => ben.messages().slice(before), (m) => m.length === SPECS.length);
    for (const [i, spec] of SPECS.entries()) {
      const ack = acks[i]!;
      expect(ack.serverMsgId).toMatch(/^\d+$/);
      expect(got[i]).toMatchObject({ id: ack.serverMsgId, from: 'ann', to: 'ben', chatType: 'singleChat', ...spec.seen, ext: EXT });
      const row = await stored(ack.serverMsgId);
      expect(row).toMatchObject({ source: 'sdk', chat_type: 'chat', payload: { bodies: [expect.objectContaining(spec.stored)], ext: EXT } });
    }
  });

  it('sends to a group: members get it with the same id, the sender does not', async () => {
    const ack = await ann.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'hi team', ext: { k: 'v' } });
    for (const [name, member] of [['ben', ben], ['cat', cat]] as const) {
      await arrives(member, name, ack.serverMsgId);
      expect(member.messages().find((m) => m.id === ack.serverMsgId)).toMatchObject({ chatType: 'groupChat', from: 'ann', to: groupId, msg: 'hi team', ext: { k: 'v' } });
    }
    expect(ann.messages().some((m) => m.id === ack.serverMsgId)).toBe(false);
    expect(await stored(ack.serverMsgId)).toMatchObject({ chat_type: 'groupchat', source: 'sdk' });
  });

  it('a non-member sending to a group is refused with GROUP_NOT_JOINED', async () => {
    const dan = await w.login('dan');
    await expect(dan.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'let me in' })).rejects.toMatchObject({ type: 602 });
    dan.close();
  });

  it('joins a chat room, gets its messages while joined, none after leaving and none stored offline', async () => {
    await expect(ben.conn.joinChatRoom({ roomId })).resolves.toMatchObject({ data: { id: roomId, result: true } });
    await ann.conn.joinChatRoom({ roomId });
    const first = await ann.send({ type: 'txt', chatType: 'chatRoom', to: roomId, msg: 'in the room' });
    await arrives(ben, 'ben', first.serverMsgId);
    expect(ben.messages().find((m) => m.id === first.serverMsgId)).toMatchObject({ chatType: 'chatRoom', to: roomId, msg: 'in the room' });

    await expect(ben.conn.leaveChatRoom({ roomId })).resolves.toMatchObject({ data: { result: true } });
    const second = await ann.send({ type: 'txt', chatType: 'chatRoom', to: roomId, msg: 'after ben left' });
    // cat never joined: a probe to cat arriving after the room message shows ben had its chance.
    const probe = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'probe' });
    await waitFor(() => ben.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ben.messages().some((m) => m.id === second.serverMsgId)).toBe(false);
    // Room members who are offline (dan, the owner) get no stored copy.
    await waitFor(() => w.online('dan'), (on) => !on);
    const third = await ann.send({ type: 'txt', chatType: 'chatRoom', to: roomId, msg: 'nobody stores this' });
    for (const id of [first.serverMsgId, second.serverMsgId, third.serverMsgId]) expect(await offlineRows('msg_id', id)).toBe(0);
  });

  it('joining a chat room that does not exist is refused', async () => {
    await expect(ben.conn.joinChatRoom({ roomId: '999999' })).rejects.toBeDefined();
  });

  it('a sensitive word is refused with MESSAGE_INCLUDE_ILLEGAL_CONTENT and delivered to nobody', async () => {
    expect((await w.api('PUT', '/moderation/sensitive-words', { words: ['spam'] })).status).toBe(200);
    const before = ben.messages().length;
    await expect(ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'buy SPAM now' })).rejects.toMatchObject({ type: 501 });
    const probe = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'clean' });
    await waitFor(() => ben.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ben.messages().slice(before).map((m) => m.msg)).toEqual(['clean']);
    await w.api('PUT', '/moderation/sensitive-words', { words: [] });
  });

  it('fires the post-send callback of an sdk-only rule for msync sends, not for REST sends', async () => {
    const rest = await w.api('POST', '/messages/users', { from: 'cat', to: ['ben'], type: 'txt', body: { msg: 'over rest' } });
    const viaSdk = await cat.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'over msync', ext: { n: 1 } });
    const hit = await waitFor(
      () => receiver.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>).find((b) => b.msg_id === viaSdk.serverMsgId),
      Boolean,
    );
    expect(hit).toMatchObject({ from: 'cat', to: 'ben', chat_type: 'chat' });
    expect(receiver.requests.some((r) => r.body.includes(rest.body.data.ben))).toBe(false);
  });

  it('two quick messages both arrive live, in order', async () => {
    const before = ben.messages().length;
    const [a, b] = await Promise.all([
      ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'quick 1' }),
      ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'quick 2' }),
    ]);
    const got = await waitFor(() => ben.messages().slice(before), (m) => m.length === 2);
    expect(got.map((m) => m.id)).toEqual([a.serverMsgId, b.serverMsgId]);
    expect(await offlineRows('username', 'ben')).toBe(0);
  });
});
