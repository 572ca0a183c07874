/**
 * A group's admins, mutes, block and allow lists and announcement, driven by the real SDKs with the
 * users' own tokens: `setGroupAdmin` / `removeGroupAdmin` / `getGroupAdmin`, `muteGroupMember` /
 * `unmuteGroupMember` / `getGroupMutelist` / `isInGroupMutelist` (a muted member's group message
 * rejects with the SDK's USER_MUTED_BY_ADMIN until the mute ends by the injected clock),
 * `blockGroupMember(s)` / `unblockGroupMember(s)` / `getGroupBlocklist` (a blocked member is
 * removed and cannot come back), the allow list, `disableSendGroupMsg` / `enableSendGroupMsg`,
 * `fetchGroupAnnouncement` / `updateGroupAnnouncement`; the members' SDKs raise `onGroupEvent` with
 * the SDK's own operation names, and what a role may not do rejects with PERMISSION_DENIED. The
 * core scenario (admins and mutes) runs with both SDK packages, the rest with easemob-websdk.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient } from '../../helpers/easemob-sdk.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(CASES)('group roles from the user side on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const groupEvents = (client: SdkClient, operation: string, groupId: string, count = 1) =>
    waitFor(
      () => client.of('groupEvent').filter((e: Any) => e.operation === operation && e.id === groupId),
      (list) => list.length >= count,
    );
  const errorsOf = (client: SdkClient) => client.sdk.default?.statusCode ?? client.sdk.statusCode;
  const create = async (owner: SdkClient, members: string[]): Promise<string> => {
    const created = await owner.conn.createGroup({ data: { groupname: 'roles', desc: '', members, public: true, approval: false, allowinvites: false, inviteNeedConfirm: false, maxusers: 200 } });
    return created.data.groupid as string;
  };
  const say = (client: SdkClient, groupId: string, msg: string) => client.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg });

  it('the owner makes an admin, who mutes a member until the clock passes the mute; muted messages reject with USER_MUTED_BY_ADMIN', async () => {
    const [ann, ben, cal, dan] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal'), w.login('dan')]);
    const groupId = await create(ann, ['ben', 'cal', 'dan']);
    const denied = { type: errorsOf(ann).PERMISSION_DENIED };

    await expect(cal.conn.setGroupAdmin({ groupId, username: 'dan' })).rejects.toMatchObject(denied);
    expect((await ann.conn.setGroupAdmin({ groupId, username: 'ben' })).data).toEqual({ result: 'success', newadmin: 'ben' });
    for (const member of [ben, cal]) expect((await groupEvents(member, 'setAdmin', groupId))[0]).toMatchObject({ from: 'ann', userId: 'ben' });
    expect((await cal.conn.getGroupAdmin({ groupId })).data).toEqual(['ben']);

    // The admin mutes cal for a minute; cal is told, with the mute's end.
    const clock = w.t.clock as FakeClock;
    const muted = await ben.conn.muteGroupMember({ groupId, username: 'cal', muteDuration: 60_000 });
    const end = clock.now() + 60_000;
    expect(muted.data).toEqual([{ result: true, expire: end, user: 'cal' }]);
    expect((await groupEvents(cal, 'muteMember', groupId))[0]).toMatchObject({ from: 'ben', userId: 'cal', muteTimestamp: end });
    expect((await ben.conn.getGroupMutelist({ groupId })).data).toEqual([{ user: 'cal', expire: end }]);
    expect((await cal.conn.isInGroupMutelist({ groupId })).data).toBe(true);
    await expect(say(cal, groupId, 'can I speak?')).rejects.toMatchObject({ type: errorsOf(cal).USER_MUTED_BY_ADMIN });
    expect((await say(dan, groupId, 'dan speaks')).serverMsgId).toBeDefined();
    // Members read no mute list; an admin mutes no owner.
    await expect(dan.conn.getGroupMutelist({ groupId })).rejects.toMatchObject(denied);
    await expect(ben.conn.muteGroupMember({ groupId, username: 'ann', muteDuration: -1 })).rejects.toMatchObject(denied);

    clock.advance(60_001);
    expect((await cal.conn.isInGroupMutelist({ groupId })).data).toBe(false);
    expect((await say(cal, groupId, 'free again')).serverMsgId).toBeDefined();

    // Until unmuted: dan, then unmuted by the owner.
    await ann.conn.muteGroupMember({ groupId, username: 'dan', muteDuration: -1 });
    await expect(say(dan, groupId, 'muted')).rejects.toMatchObject({ type: errorsOf(dan).USER_MUTED_BY_ADMIN });
    expect((await ann.conn.getGroupMutelist({ groupId })).data).toEqual([{ user: 'dan', expire: -1 }]);
    expect((await ann.conn.unmuteGroupMember({ groupId, username: 'dan' })).data).toEqual([{ result: true, user: 'dan' }]);
    expect((await groupEvents(dan, 'unmuteMember', groupId))[0]).toMatchObject({ from: 'ann', userId: 'dan' });
    expect((await say(dan, groupId, 'back')).serverMsgId).toBeDefined();

    // The admin removes a member; the owner unmakes the admin, who then cannot.
    await ben.conn.removeGroupMember({ groupId, username: 'dan' });
    expect((await groupEvents(dan, 'removeMember', groupId))[0]).toMatchObject({ from: 'ben' });
    expect((await ann.conn.removeGroupAdmin({ groupId, username: 'ben' })).data).toEqual({ result: 'success', oldadmin: 'ben' });
    await groupEvents(cal, 'removeAdmin', groupId);
    expect((await ann.conn.getGroupAdmin({ groupId })).data).toEqual([]);
    await expect(ben.conn.removeGroupMember({ groupId, username: 'cal' })).rejects.toMatchObject(denied);
  });

  it.skipIf(sdkPackage !== 'easemob-websdk')('blocking removes a member and keeps them out until unblocked; the block list reads back', async () => {
    const [ann, ben, dan] = await Promise.all([w.login('ann'), w.login('ben'), w.login('dan')]);
    const groupId = await create(ann, ['ben', 'cal', 'dan']);
    const denied = { type: errorsOf(ann).PERMISSION_DENIED };

    await expect(ben.conn.blockGroupMember({ groupId, username: 'dan' })).rejects.toMatchObject(denied);
    expect((await ann.conn.blockGroupMember({ groupId, username: 'dan' })).data).toEqual({ action: 'add_blocks', groupid: groupId, result: true, user: 'dan' });
    expect((await groupEvents(dan, 'removeMember', groupId))[0]).toMatchObject({ from: 'ann' });
    expect((await groupEvents(ben, 'memberAbsence', groupId))[0]).toMatchObject({ from: 'dan' });
    expect((await ann.conn.getGroupBlocklist({ groupId })).data).toEqual(['dan']);
    await expect(dan.conn.joinGroup({ groupId, message: '' })).rejects.toMatchObject(denied);
    await expect(ann.conn.inviteUsersToGroup({ groupId, users: ['dan'] })).rejects.toMatchObject(denied);
    expect((await ann.conn.listGroupMembers({ groupId, pageNum: 1, pageSize: 10 })).data).toEqual([{ owner: 'ann' }, { member: 'ben' }, { member: 'cal' }]);

    expect((await ann.conn.unblockGroupMember({ groupId, username: 'dan' })).data).toEqual({ action: 'remove_blocks', groupid: groupId, result: true, user: 'dan' });
    expect((await ann.conn.getGroupBlocklist({ groupId })).data).toEqual([]);
    await dan.conn.joinGroup({ groupId, message: '' });
    await groupEvents(ben, 'memberPresence', groupId);

    // Several at once; one the caller may not block (the owner) blocks none.
    await expect(ann.conn.blockGroupMembers({ groupId, usernames: ['cal', 'ann'] })).rejects.toMatchObject(denied);
    expect((await ann.conn.getGroupBlocklist({ groupId })).data).toEqual([]);
    const blocked = await ann.conn.blockGroupMembers({ groupId, usernames: ['cal', 'dan'] });
    expect(blocked.data.map((r: Any) => [r.user, r.result, r.action])).toEqual([['cal', true, 'add_blocks'], ['dan', true, 'add_blocks']]);
    const unblocked = await ann.conn.unblockGroupMembers({ groupId, usernames: ['cal', 'dan'] });
    expect(unblocked.data.map((r: Any) => r.user)).toEqual(['cal', 'dan']);
    expect((await ann.conn.getGroupBlocklist({ groupId })).data).toEqual([]);
  });

  it.skipIf(sdkPackage !== 'easemob-websdk')('the allow list speaks through a mute of all members; announcements reach the members', async () => {
    const [ann, ben, cal] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal')]);
    const groupId = await create(ann, ['ben', 'cal']);
    const denied = { type: errorsOf(ann).PERMISSION_DENIED };

    const added = await ann.conn.addUsersToGroupAllowlist({ groupId, users: ['cal'] });
    expect(added.data).toMatchObject({ result: true, user: 'cal', action: 'add_user_whitelist', groupid: groupId });
    expect((await groupEvents(cal, 'addUserToAllowlist', groupId))[0]).toMatchObject({ from: 'ann', userId: 'cal' });
    expect((await ann.conn.getGroupAllowlist({ groupId })).data).toEqual(['cal']);
    expect((await ben.conn.isInGroupAllowlist({ groupId, userName: 'cal' })).data).toEqual({ member: 'cal', white: true });
    await expect(ben.conn.getGroupAllowlist({ groupId })).rejects.toMatchObject(denied);

    expect((await ann.conn.disableSendGroupMsg({ groupId })).data).toEqual({ mute: true });
    await groupEvents(ben, 'muteAllMembers', groupId);
    await expect(say(ben, groupId, 'anyone?')).rejects.toMatchObject({ type: errorsOf(ben).USER_MUTED_BY_ADMIN });
    expect((await say(cal, groupId, 'allowed')).serverMsgId).toBeDefined();
    expect((await say(ann, groupId, 'the owner')).serverMsgId).toBeDefined();
    expect((await ann.conn.enableSendGroupMsg({ groupId })).data).toEqual({ mute: false });
    await groupEvents(ben, 'unmuteAllMembers', groupId);
    expect((await say(ben, groupId, 'again')).serverMsgId).toBeDefined();

    expect((await ann.conn.removeGroupAllowlistMember({ groupId, userName: 'cal' })).data).toMatchObject({ result: true, user: 'cal' });
    await groupEvents(cal, 'removeAllowlistMember', groupId);
    expect((await ben.conn.isInGroupAllowlist({ groupId, userName: 'cal' })).data).toEqual({ member: 'cal', white: false });

    expect((await ben.conn.fetchGroupAnnouncement({ groupId })).data).toEqual({ announcement: '' });
    await expect(ben.conn.updateGroupAnnouncement({ groupId, announcement: 'mine' })).rejects.toMatchObject(denied);
    expect((await ann.conn.updateGroupAnnouncement({ groupId, announcement: 'Launch at noon' })).data).toEqual({ id: groupId, result: true });
    for (const member of [ben, cal]) expect((await groupEvents(member, 'updateAnnouncement', groupId))[0]).toMatchObject({ from: 'ann', announcement: 'Launch at noon' });
    expect((await cal.conn.fetchGroupAnnouncement({ groupId })).data).toEqual({ announcement: 'Launch at noon' });
  });
});
