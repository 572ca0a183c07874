/**
 * The server conversation list with the real Easemob Web SDK on both engines
 * (`getServerConversations`): one-to-one conversations and groups, latest first, with the last
 * message and the unread count (the user's own sends are not unread); paging with the SDK's
 * cursor; a CHANNEL_ACK sent by the SDK resets a conversation's count; `deleteConversation`
 * removes one until a later message; `pinConversation` pins and unpins one (`isPinned`, `pinnedTime` in
 * the list, and `getServerPinnedConversations` lists the pinned ones); another user's list is refused. The same list, read, paging and
 * delete with `agora-chat`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../helpers/clock.js';
import { call } from '../../helpers/app.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

interface Conversation {
  conversationId: string;
  conversationType: string;
  unReadCount: number;
  isPinned: boolean;
  pinnedTime: number;
  lastMessage: { id: string; msg?: string; from: string; type: string };
}

describe.each(ENGINES)('server conversations with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann: SdkClient;
  let groupId: string;

  async function rest(from: string, to: string, msg: string, target: 'users' | 'chatgroups' = 'users'): Promise<string> {
    const res = await w.api('POST', `/messages/${target}`, { from, to: [to], type: 'txt', body: { msg } });
    expect(res.status).toBe(200);
    (w.t.clock as FakeClock).advance(1000);
    return String(res.body.data[to]);
  }
  async function list(pageSize = 20, cursor?: string, client = ann): Promise<{ conversations: Conversation[]; cursor: string }> {
    const res = await client.conn.getServerConversations({ pageSize, ...(cursor ? { cursor } : {}) });
    return res.data;
  }
  const byId = async (id: string, client = ann) => (await list(20, undefined, client)).conversations.find((c) => c.conversationId === id);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve'], { env: { PARLEY_IM_RATE_LIMIT: '100000' } });
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid;
    for (const m of ['b1', 'b2', 'b3']) await rest('ben', 'ann', m);
    await rest('cat', 'ann', 'c1');
    await rest('ann', 'cat', 'to cat');
    await rest('ben', 'dan', 'not ann’s');
    await rest('ben', groupId, 'g1', 'chatgroups');
    await rest('cat', groupId, 'g2', 'chatgroups');
    await rest('ann', groupId, 'g3', 'chatgroups');
    ann = await w.login('ann');
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it('lists conversations latest first with the last message and what the user has not read', async () => {
    const { conversations, cursor } = await list();
    expect(cursor).toBe('');
    expect(conversations.map((c) => [c.conversationId, c.conversationType, c.unReadCount])).toEqual([
      [groupId, 'groupChat', 2],
      ['cat', 'singleChat', 1],
      ['ben', 'singleChat', 3],
    ]);
    expect(conversations[0]!.lastMessage).toMatchObject({ type: 'txt', msg: 'g3', from: 'ann' });
    expect(conversations[1]!.lastMessage).toMatchObject({ type: 'txt', msg: 'to cat', from: 'ann' });
    expect(conversations[2]!.lastMessage).toMatchObject({ type: 'txt', msg: 'b3', from: 'ben' });
  });

  it('pages with the SDK cursor', async () => {
    const first = await list(2);
    expect(first.conversations.map((c) => c.conversationId)).toEqual([groupId, 'cat']);
    expect(first.cursor).not.toBe('');
    const second = await list(2, first.cursor);
    expect(second.conversations.map((c) => c.conversationId)).toEqual(['ben']);
    expect(second.cursor).toBe('');
  });

  it('a CHANNEL_ACK from the SDK resets the unread count; later messages count again', async () => {
    await ann.send({ type: 'channel', chatType: 'singleChat', to: 'ben' });
    await waitFor(() => byId('ben'), (c) => c?.unReadCount === 0);
    await ann.send({ type: 'channel', chatType: 'groupChat', to: groupId });
    await waitFor(() => byId(groupId), (c) => c?.unReadCount === 0);
    await rest('ben', 'ann', 'b4');
    expect((await byId('ben'))?.unReadCount).toBe(1);
  });

  it('deleteConversation removes one from the list until a later message', async () => {
    await ann.conn.deleteConversation({ channel: 'cat', chatType: 'singleChat', deleteRoam: false });
    expect(await byId('cat')).toBeUndefined();
    await rest('cat', 'ann', 'c2');
    expect(await byId('cat')).toMatchObject({ unReadCount: 1, lastMessage: { msg: 'c2' } });
  });

  it('deleteConversation with deleteRoam also clears that conversation’s history for the user only', async () => {
    const before = await ann.conn.getHistoryMessages({ targetId: 'ben', chatType: 'singleChat', pageSize: 50 });
    expect(before.messages.length).toBeGreaterThan(0);
    await ann.conn.deleteConversation({ channel: 'ben', chatType: 'singleChat', deleteRoam: true });
    expect(await byId('ben')).toBeUndefined();
    const after = await ann.conn.getHistoryMessages({ targetId: 'ben', chatType: 'singleChat', pageSize: 50 });
    expect(after.messages).toEqual([]);
    // Ben's own history keeps the messages.
    const bens = await w.api('POST', '/users/ben/messageroaming', { queue: 'ann@easemob.com', start: -1, pull_number: 50 });
    expect(bens.body.data.msgs.length).toBe(before.messages.length);
    await rest('ben', 'ann', 'b5');
    const fresh = await ann.conn.getHistoryMessages({ targetId: 'ben', chatType: 'singleChat', pageSize: 50 });
    expect(fresh.messages.map((m: { msg: string }) => m.msg)).toEqual(['b5']);
  });

  it('pinConversation pins and unpins: isPinned and pinnedTime in the list, the pinned ones alone in getServerPinnedConversations', async () => {
    const pinned = await ann.conn.pinConversation({ conversationId: 'cat', conversationType: 'singleChat', isPinned: true });
    expect(pinned.data).toEqual({ isPinned: true, pinnedTime: (w.t.clock as FakeClock).now() });
    expect(await byId('cat')).toMatchObject({ isPinned: true, pinnedTime: pinned.data.pinnedTime });
    expect(await byId(groupId)).toMatchObject({ isPinned: false, pinnedTime: 0 });
    await ann.conn.pinConversation({ conversationId: groupId, conversationType: 'groupChat', isPinned: true });
    const pinnedList = async () => ((await ann.conn.getServerPinnedConversations({ pageSize: 20 })).data.conversations as Conversation[]).map((c) => [c.conversationId, c.isPinned]);
    // Latest message first, as the whole list.
    expect(await pinnedList()).toEqual((await list()).conversations.filter((c) => c.conversationId === 'cat' || c.conversationId === groupId).map((c) => [c.conversationId, true]));
    expect(await pinnedList()).toHaveLength(2);
    const unpinned = await ann.conn.pinConversation({ conversationId: 'cat', conversationType: 'singleChat', isPinned: false });
    expect(unpinned.data).toEqual({ isPinned: false, pinnedTime: 0 });
    expect(await byId('cat')).toMatchObject({ isPinned: false, pinnedTime: 0 });
    expect(await pinnedList()).toEqual([[groupId, true]]);
    // Pins are the user's own: ben's list does not show ann's.
    const ben = await w.login('ben');
    expect((await list(20, undefined, ben)).conversations.find((c) => c.conversationId === groupId)).toMatchObject({ isPinned: false });
    ben.close();
    await ann.conn.pinConversation({ conversationId: groupId, conversationType: 'groupChat', isPinned: false });
  });

  it('refuses another user’s list and a cursor that does not decode', async () => {
    const annToken = await w.token('ann');
    const foreign = await call(w.t.app, annToken, 'GET', `${w.im.base}/sdk/user/ben/user_channels/list?limit=20`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: 'forbidden_op' });
    const bad = await call(w.t.app, annToken, 'GET', `${w.im.base}/sdk/user/ann/user_channels/list?limit=20&cursor=zz`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'illegal_argument' });
    const asAdmin = await w.api('GET', '/sdk/user/dan/user_channels/list?limit=20');
    expect(asAdmin.body.data.channel_infos.map((c: { session_to: string }) => c.session_to)).toEqual(['ben']);
  });

  it('agora-chat lists, pages, reads and deletes conversations the same way', async () => {
    for (const m of ['e1', 'e2']) await rest('ben', 'eve', m);
    await rest('cat', 'eve', 'e3');
    const eve = await w.login('eve', 'agora-chat');
    const first = await list(1, undefined, eve);
    expect(first.conversations.map((c) => [c.conversationId, c.unReadCount, c.lastMessage.msg])).toEqual([['cat', 1, 'e3']]);
    const second = await list(1, first.cursor, eve);
    expect(second.conversations.map((c) => [c.conversationId, c.unReadCount, c.lastMessage.msg])).toEqual([['ben', 2, 'e2']]);
    await eve.send({ type: 'channel', chatType: 'singleChat', to: 'ben' });
    await waitFor(() => byId('ben', eve), (c) => c?.unReadCount === 0);
    await eve.conn.deleteConversation({ channel: 'cat', chatType: 'singleChat', deleteRoam: false });
    expect((await list(20, undefined, eve)).conversations.map((c) => c.conversationId)).toEqual(['ben']);
  });
});
