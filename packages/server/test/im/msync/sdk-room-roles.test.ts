/**
 * A chat room's admins, mutes, block and allow lists and announcement, driven by the unmodified
 * easemob-websdk with the users' own tokens: `setChatRoomAdmin` / `removeChatRoomAdmin` /
 * `getChatRoomAdmin`, `muteChatRoomMember` / `unmuteChatRoomMember` / `getChatRoomMutelist` /
 * `isInChatRoomMutelist` (a muted member's room message rejects with USER_MUTED_BY_ADMIN until the
 * mute ends by the injected clock), `removeChatRoomMember(s)` by an admin, `blockChatRoomMember(s)` /
 * `unblockChatRoomMember(s)` / `getChatRoomBlocklist` (a blocked member is removed and cannot join
 * again), the allow list, `disableSendChatRoomMsg` / `enableSendChatRoomMsg`,
 * `fetchChatRoomAnnouncement` / `updateChatRoomAnnouncement`; the members' SDKs raise
 * `onChatroomEvent` with the SDK's own operation names, and what a role may not do rejects with
 * PERMISSION_DENIED.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';
import { errorsOf } from '../../helpers/sdk-groups.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(ENGINES)('chat-room roles from the user side on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan'], { sdkPackage: 'easemob-websdk' });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const roomEvents = (client: SdkClient, operation: string, roomId: string, count = 1) =>
    waitFor(
      () => client.of('chatroomEvent').filter((e: Any) => e.operation === operation && e.id === roomId),
      (list) => list.length >= count,
    );
  /** A room owned by ann, which the clients join through the SDK. */
  const open = async (...clients: SdkClient[]): Promise<string> => {
    const roomId = (await w.api('POST', '/chatrooms', { name: 'lobby', description: '', owner: 'ann' })).body.data.id as string;
    for (const client of clients) await client.conn.joinChatRoom({ roomId });
    return roomId;
  };
  const say = (client: SdkClient, roomId: string, msg: string) => client.send({ type: 'txt', chatType: 'chatRoom', to: roomId, msg });

  it('the owner makes an admin, who mutes a member until the clock passes the mute and removes members; muted messages reject with USER_MUTED_BY_ADMIN', async () => {
    const [ann, ben, cal, dan] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal'), w.login('dan')]);
    const chatRoomId = await open(ben, cal, dan);
    const denied = { type: errorsOf(ann).PERMISSION_DENIED };

    await expect(cal.conn.setChatRoomAdmin({ chatRoomId, username: 'dan' })).rejects.toMatchObject(denied);
    expect((await ann.conn.setChatRoomAdmin({ chatRoomId, username: 'ben' })).data).toEqual({ result: 'success', newadmin: 'ben' });
    for (const member of [ben, cal]) expect((await roomEvents(member, 'setAdmin', chatRoomId))[0]).toMatchObject({ from: 'ann', userId: 'ben' });
    expect((await cal.conn.getChatRoomAdmin({ chatRoomId })).data).toEqual(['ben']);

    const clock = w.t.clock as FakeClock;
    const muted = await ben.conn.muteChatRoomMember({ chatRoomId, username: 'cal', muteDuration: 60_000 });
    const end = clock.now() + 60_000;
    expect(muted.data).toEqual([{ result: true, expire: end, user: 'cal' }]);
    expect((await roomEvents(cal, 'muteMember', chatRoomId))[0]).toMatchObject({ from: 'ben', userId: 'cal', muteTimestamp: end });
    expect((await ben.conn.getChatRoomMutelist({ chatRoomId })).data).toEqual([{ user: 'cal', expire: end }]);
    expect((await cal.conn.isInChatRoomMutelist({ chatRoomId })).data).toBe(true);
    await expect(say(cal, chatRoomId, 'can I speak?')).rejects.toMatchObject({ type: errorsOf(cal).USER_MUTED_BY_ADMIN });
    expect((await say(dan, chatRoomId, 'dan speaks')).serverMsgId).toBeDefined();
    await expect(dan.conn.getChatRoomMutelist({ chatRoomId })).rejects.toMatchObject(denied);
    await expect(ben.conn.muteChatRoomMember({ chatRoomId, username: 'ann', muteDuration: -1 })).rejects.toMatchObject(denied);

    clock.advance(60_001);
    expect((await cal.conn.isInChatRoomMutelist({ chatRoomId })).data).toBe(false);
    expect((await say(cal, chatRoomId, 'free again')).serverMsgId).toBeDefined();

    await ann.conn.muteChatRoomMember({ chatRoomId, username: 'dan', muteDuration: -1 });
    await expect(say(dan, chatRoomId, 'muted')).rejects.toMatchObject({ type: errorsOf(dan).USER_MUTED_BY_ADMIN });
    expect((await ann.conn.unmuteChatRoomMember({ chatRoomId, username: 'dan' })).data).toEqual([{ result: true, user: 'dan' }]);
    expect((await roomEvents(dan, 'unmuteMember', chatRoomId))[0]).toMatchObject({ from: 'ann', userId: 'dan' });
    expect((await say(dan, chatRoomId, 'back')).serverMsgId).toBeDefined();

    // The admin removes a member; the owner unmakes the admin, who then cannot.
    await ben.conn.removeChatRoomMember({ chatRoomId, username: 'dan' });
    expect((await roomEvents(dan, 'removeMember', chatRoomId))[0]).toMatchObject({ from: 'ben' });
    expect((await ann.conn.removeChatRoomAdmin({ chatRoomId, username: 'ben' })).data).toEqual({ result: 'success', oldadmin: 'ben' });
    await roomEvents(cal, 'removeAdmin', chatRoomId);
    expect((await ann.conn.getChatRoomAdmin({ chatRoomId })).data).toEqual([]);
    await expect(ben.conn.removeChatRoomMember({ chatRoomId, username: 'cal' })).rejects.toMatchObject(denied);
    await Promise.all([ann, ben, cal, dan].map((c) => c.close()));
  });

  it('blocking removes a member and keeps them out until unblocked; the allow list speaks through a mute of all; announcements reach the members', async () => {
    const [ann, ben, cal, dan] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal'), w.login('dan')]);
    const chatRoomId = await open(ben, cal, dan);
    const roomId = chatRoomId;
    const denied = { type: errorsOf(ann).PERMISSION_DENIED };

    await expect(ben.conn.blockChatRoomMember({ chatRoomId, username: 'dan' })).rejects.toMatchObject(denied);
    expect((await ann.conn.blockChatRoomMember({ chatRoomId, username: 'dan' })).data).toMatchObject({ action: 'add_blocks', chatroomid: roomId, result: true, user: 'dan' });
    expect((await roomEvents(dan, 'removeMember', roomId))[0]).toMatchObject({ from: 'ann' });
    expect((await roomEvents(ben, 'memberAbsence', roomId))[0]).toMatchObject({ from: 'dan' });
    expect((await ann.conn.getChatRoomBlocklist({ chatRoomId })).data).toEqual(['dan']);
    await expect(dan.conn.joinChatRoom({ roomId })).rejects.toMatchObject(denied);
    await expect(say(dan, roomId, 'let me in')).rejects.toBeDefined();
    expect((await ann.conn.unblockChatRoomMember({ chatRoomId, username: 'dan' })).data).toMatchObject({ action: 'remove_blocks', chatroomid: roomId, result: true, user: 'dan' });
    await dan.conn.joinChatRoom({ roomId });
    await roomEvents(ben, 'memberPresence', roomId);
    await expect(ann.conn.blockChatRoomMembers({ chatRoomId, usernames: ['cal', 'ann'] })).rejects.toMatchObject(denied);
    expect((await ann.conn.getChatRoomBlocklist({ chatRoomId })).data).toEqual([]);
    const blocked = await ann.conn.blockChatRoomMembers({ chatRoomId, usernames: ['cal', 'dan'] });
    expect(blocked.data.map((r: Any) => [r.user, r.result, r.action])).toEqual([['cal', true, 'add_blocks'], ['dan', true, 'add_blocks']]);
    const unblocked = await ann.conn.unblockChatRoomMembers({ chatRoomId, usernames: ['cal', 'dan'] });
    expect(unblocked.data.map((r: Any) => r.user)).toEqual(['cal', 'dan']);
    for (const client of [cal, dan]) await client.conn.joinChatRoom({ roomId });
    expect((await ann.conn.getChatRoomBlocklist({ chatRoomId })).data).toEqual([]);

    const added = await ann.conn.addUsersToChatRoomAllowlist({ chatRoomId, users: ['cal'] });
    expect(added.data).toMatchObject({ result: true, user: 'cal', action: 'add_user_whitelist', chatroomid: roomId });
    expect((await roomEvents(cal, 'addUserToAllowlist', roomId))[0]).toMatchObject({ from: 'ann', userId: 'cal' });
    expect((await ann.conn.getChatRoomAllowlist({ chatRoomId })).data).toEqual(['cal']);
    expect((await ben.conn.isInChatRoomAllowlist({ chatRoomId, userName: 'cal' })).data).toEqual({ member: 'cal', white: true });
    await expect(ben.conn.getChatRoomAllowlist({ chatRoomId })).rejects.toMatchObject(denied);

    expect((await ann.conn.disableSendChatRoomMsg({ chatRoomId })).data).toEqual({ mute: true });
    await roomEvents(ben, 'muteAllMembers', roomId);
    await expect(say(ben, roomId, 'anyone?')).rejects.toMatchObject({ type: errorsOf(ben).USER_MUTED_BY_ADMIN });
    expect((await say(cal, roomId, 'allowed')).serverMsgId).toBeDefined();
    expect((await say(ann, roomId, 'the owner')).serverMsgId).toBeDefined();
    expect((await ann.conn.enableSendChatRoomMsg({ chatRoomId })).data).toEqual({ mute: false });
    await roomEvents(ben, 'unmuteAllMembers', roomId);
    expect((await say(ben, roomId, 'again')).serverMsgId).toBeDefined();

    expect((await ann.conn.removeChatRoomAllowlistMember({ chatRoomId, userName: 'cal' })).data).toMatchObject({ result: true, user: 'cal' });
    await roomEvents(cal, 'removeAllowlistMember', roomId);
    expect((await ben.conn.isInChatRoomAllowlist({ chatRoomId, userName: 'cal' })).data).toEqual({ member: 'cal', white: false });

    expect((await ben.conn.fetchChatRoomAnnouncement({ roomId })).data).toEqual({ announcement: '' });
    await expect(ben.conn.updateChatRoomAnnouncement({ roomId, announcement: 'mine' })).rejects.toMatchObject(denied);
    expect((await ann.conn.updateChatRoomAnnouncement({ roomId, announcement: 'Launch at noon' })).data).toEqual({ id: roomId, result: true });
    for (const member of [ben, cal]) expect((await roomEvents(member, 'updateAnnouncement', roomId))[0]).toMatchObject({ from: 'ann', announcement: 'Launch at noon' });
    expect((await cal.conn.fetchChatRoomAnnouncement({ roomId })).data).toEqual({ announcement: 'Launch at noon' });
    await Promise.all([ann, ben, cal, dan].map((c) => c.close()));
  });
});
