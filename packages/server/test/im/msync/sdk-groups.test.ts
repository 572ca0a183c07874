/**
 * Groups from the user's side, driven by the real SDKs with the user's own token: `createGroup`
 * and `createGroupVNext` (Easemob's body; the creator owns it), `getPublicGroups`, `getJoinedGroups` (v3), `getGroupInfo`,
 * `listGroupMembers` (pages), `joinGroup` (at once, or by a request the owner answers with
 * `acceptGroupJoinRequest` / `rejectGroupJoinRequest`), `leaveGroup`, `inviteUsersToGroup`, `removeGroupMember`,
 * `modifyGroup`, `changeGroupOwner`, `destroyGroup`; the other members' SDKs raise `onGroupEvent`
 * with the operation the MUC notice names (directJoined, memberPresence, memberAbsence,
 * removeMember, updateInfo, changeOwner, destroy, requestToJoin, acceptRequest,
 * joinPublicGroupDeclined), and what only the owner may do is refused with
 * the SDK's PERMISSION_DENIED.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';
import { errorsOf, groupEvents } from '../../helpers/sdk-groups.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(CASES)('groups from the user side on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan', 'eve'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const create = async (owner: SdkClient, data: Record<string, unknown>): Promise<string> => {
    const created = await owner.conn.createGroup({ data: { desc: '', members: [], public: true, approval: false, allowinvites: false, inviteNeedConfirm: false, maxusers: 200, ...data } });
    return created.data.groupid as string;
  };

  it('createGroup with the SDK body makes the creator its owner; members get directJoined; joined groups, info and member pages read back', async () => {
    const [ann, ben] = await Promise.all([w.login('ann'), w.login('ben')]);
    const groupId = await create(ann, { groupname: 'team', desc: 'the team', members: ['ben', 'cal'], allowinvites: true, maxusers: 50, ext: '{"topic":"launch"}' });
    expect(groupId).toMatch(/^\d+$/);
    const [joined] = await groupEvents(ben, 'directJoined', groupId);
    expect(joined).toMatchObject({ operation: 'directJoined', id: groupId, from: 'ann', name: 'team' });

    const mine = await ann.conn.getJoinedGroups({ pageNum: 1, pageSize: 20, needAffiliations: false, needRole: false });
    expect(mine.data.map((g: Any) => [g.groupid, g.groupname])).toContainEqual([groupId, 'team']);
    const withRole = await ben.conn.getJoinedGroups({ pageNum: 1, pageSize: 20, needAffiliations: true, needRole: true });
    expect(withRole.entities.find((g: Any) => g.groupId === groupId)).toMatchObject({ groupName: 'team', role: 'member', affiliationsCount: 3, allowInvites: true, maxUsers: 50, public: true });

    const info = await ben.conn.getGroupInfo({ groupId });
    expect(info.data[0]).toMatchObject({ id: groupId, name: 'team', description: 'the team', owner: 'ann', public: true, allowinvites: true, membersonly: false, maxusers: 50, custom: '{"topic":"launch"}', affiliations_count: 3 });

    const first = await ben.conn.listGroupMembers({ groupId, pageNum: 1, pageSize: 2 });
    expect(first.data).toEqual([{ owner: 'ann' }, { member: 'ben' }]);
    const second = await ben.conn.listGroupMembers({ groupId, pageNum: 2, pageSize: 2 });
    expect(second.data).toEqual([{ member: 'cal' }]);
    // Not a member: the group's reads are refused; the public groups list it.
    const dan = await w.login('dan');
    await expect(dan.conn.getGroupInfo({ groupId })).rejects.toMatchObject({ type: errorsOf(dan).PERMISSION_DENIED });
    expect((await dan.conn.getPublicGroups({ limit: 100 })).data.map((g: Any) => g.groupid)).toContain(groupId);

    // createGroupVNext: the same body under the SDK's newer names.
    const next = await ann.conn.createGroupVNext({ groupName: 'next', description: 'd', members: ['ben'], isPublic: false, needApprovalToJoin: true, allowMemberToInvite: false, inviteNeedConfirm: false, maxMemberCount: 10, extension: 'x' });
    expect(next.data.groupId).toMatch(/^\d+$/);
    expect((await ben.conn.getGroupInfo({ groupId: next.data.groupId })).data[0]).toMatchObject({ name: 'next', owner: 'ann', public: false, membersonly: true, allowinvites: false, maxusers: 10, custom: 'x' });
    expect((await dan.conn.getPublicGroups({ limit: 100 })).data.map((g: Any) => g.groupid)).not.toContain(next.data.groupId);
  });

  it('joinGroup joins a public group at once and leaveGroup leaves it; the members see memberPresence and memberAbsence', async () => {
    const [ann, ben, dan] = await Promise.all([w.login('ann'), w.login('ben'), w.login('dan')]);
    const groupId = await create(ann, { groupname: 'open', members: ['ben'] });
    await dan.conn.joinGroup({ groupId, message: 'let me in' });
    for (const member of [ann, ben]) expect((await groupEvents(member, 'memberPresence', groupId))[0]).toMatchObject({ from: 'dan', id: groupId });
    expect((await dan.conn.getJoinedGroups({ pageNum: 1, pageSize: 20 })).data.map((g: Any) => g.groupid)).toContain(groupId);

    await dan.conn.leaveGroup({ groupId });
    for (const member of [ann, ben]) expect((await groupEvents(member, 'memberAbsence', groupId))[0]).toMatchObject({ from: 'dan', id: groupId });
    expect((await dan.conn.getJoinedGroups({ pageNum: 1, pageSize: 20 })).data.map((g: Any) => g.groupid)).not.toContain(groupId);
    expect((await ann.conn.listGroupMembers({ groupId, pageNum: 1, pageSize: 10 })).data).toEqual([{ owner: 'ann' }, { member: 'ben' }]);

    // The owner cannot leave; a private group and one needing approval cannot be joined.
    await expect(ann.conn.leaveGroup({ groupId })).rejects.toMatchObject({ type: errorsOf(ann).PERMISSION_DENIED });
    const closed = await create(ann, { groupname: 'closed', public: false });
    await expect(dan.conn.joinGroup({ groupId: closed, message: '' })).rejects.toMatchObject({ type: errorsOf(dan).PERMISSION_DENIED });
    expect((await dan.conn.getJoinedGroups({ pageNum: 1, pageSize: 20 })).data.map((g: Any) => g.groupid)).toEqual([]);
  });

  it("joinGroup on a group needing approval asks its owner (requestToJoin), who accepts (acceptRequest) or declines (joinPublicGroupDeclined)", async () => {
    const [ann, ben, dan, eve] = await Promise.all([w.login('ann'), w.login('ben'), w.login('dan'), w.login('eve')]);
    const vetted = await create(ann, { groupname: 'vetted', approval: true, members: ['ben'] });
    await dan.conn.joinGroup({ groupId: vetted, message: 'dan here' });
    expect((await groupEvents(ann, 'requestToJoin', vetted))[0]).toMatchObject({ from: 'dan', reason: 'dan here' });
    // Not a member until the owner answers.
    expect((await ann.conn.listGroupMembers({ groupId: vetted, pageNum: 1, pageSize: 10 })).data).toEqual([{ owner: 'ann' }, { member: 'ben' }]);
    await expect(ben.conn.acceptGroupJoinRequest({ groupId: vetted, applicant: 'dan' })).rejects.toMatchObject({ type: errorsOf(ben).PERMISSION_DENIED });
    await ann.conn.acceptGroupJoinRequest({ groupId: vetted, applicant: 'dan' });
    expect((await groupEvents(dan, 'acceptRequest', vetted))[0]).toMatchObject({ from: 'ann' });
    await groupEvents(ben, 'memberPresence', vetted, 'dan');
    expect((await dan.conn.getJoinedGroups({ pageNum: 1, pageSize: 20 })).data.map((g: Any) => g.groupid)).toContain(vetted);

    await eve.conn.joinGroup({ groupId: vetted, message: '' });
    await groupEvents(ann, 'requestToJoin', vetted, 'eve');
    await ann.conn.rejectGroupJoinRequest({ groupId: vetted, applicant: 'eve', reason: 'full up' });
    expect((await groupEvents(eve, 'joinPublicGroupDeclined', vetted))[0]).toMatchObject({ from: 'ann' });
    expect((await ann.conn.listGroupMembers({ groupId: vetted, pageNum: 1, pageSize: 10 })).data).toEqual([{ owner: 'ann' }, { member: 'ben' }, { member: 'dan' }]);
    // An answered request is gone.
    await expect(ann.conn.acceptGroupJoinRequest({ groupId: vetted, applicant: 'eve' })).rejects.toBeDefined();
  });

  it("invite, remove, edit, change of owner and destroy, each by whom it may; the others' are refused with PERMISSION_DENIED", async () => {
    const [ann, ben, cal, eve] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal'), w.login('eve')]);
    const groupId = await create(ann, { groupname: 'crew', members: ['ben'] });
    const denied = { type: errorsOf(ben).PERMISSION_DENIED };

    // Members may not invite unless the group allows it; the owner may.
    await expect(ben.conn.inviteUsersToGroup({ groupId, users: ['cal'] })).rejects.toMatchObject(denied);
    await ann.conn.inviteUsersToGroup({ groupId, users: ['cal', 'eve'] });
    expect((await groupEvents(cal, 'directJoined', groupId))[0]).toMatchObject({ from: 'ann' });
    await groupEvents(ben, 'memberPresence', groupId, 'cal');
    await groupEvents(ben, 'memberPresence', groupId, 'eve');

    // Only the owner removes, edits and destroys.
    await expect(ben.conn.removeGroupMember({ groupId, username: 'cal' })).rejects.toMatchObject(denied);
    await expect(ben.conn.destroyGroup({ groupId })).rejects.toMatchObject(denied);
    await expect(ben.conn.modifyGroup({ groupId, groupName: 'mine now' })).rejects.toMatchObject(denied);
    expect((await ann.conn.getGroupInfo({ groupId })).data[0]).toMatchObject({ name: 'crew', affiliations_count: 4 });

    await ann.conn.removeGroupMember({ groupId, username: 'cal' });
    expect((await groupEvents(cal, 'removeMember', groupId))[0]).toMatchObject({ from: 'ann' });
    await groupEvents(ben, 'memberAbsence', groupId, 'cal');

    await ann.conn.modifyGroup({ groupId, groupName: 'crew two', description: 'renamed' });
    await groupEvents(ben, 'updateInfo', groupId);
    expect((await ben.conn.getGroupInfo({ groupId })).data[0]).toMatchObject({ name: 'crew two', description: 'renamed' });

    await ann.conn.changeGroupOwner({ groupId, newOwner: 'ben' });
    expect((await groupEvents(eve, 'changeOwner', groupId))[0]).toMatchObject({ from: 'ann' });
    expect((await eve.conn.getGroupInfo({ groupId })).data[0]).toMatchObject({ owner: 'ben', affiliations: [{ owner: 'ben' }, { member: 'ann' }, { member: 'eve' }] });
    await expect(ann.conn.destroyGroup({ groupId })).rejects.toMatchObject(denied);

    await ben.conn.destroyGroup({ groupId });
    for (const member of [ann, eve]) expect((await groupEvents(member, 'destroy', groupId))[0]).toMatchObject({ from: 'ben' });
    await expect(ann.conn.getGroupInfo({ groupId })).rejects.toBeDefined();
    expect((await w.api('GET', `/chatgroups/${groupId}`)).status).toBe(404);
  });
});
