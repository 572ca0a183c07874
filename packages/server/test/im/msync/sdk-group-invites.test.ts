/**
 * Invitations held for the invitee's confirmation, driven by the real SDKs: a user's
 * `inviteUsersToGroup` to a group created with `inviteNeedConfirm: true` adds nobody; the invitee's
 * SDK raises `onGroupEvent` `inviteToJoin` (live, or on their next login when offline), and answers
 * with `acceptGroupInvite` (a member now: the inviter hears `acceptInvite`, the members
 * `memberPresence`) or `rejectGroupInvite` (the inviter hears `rejectInvite`). Answering for someone
 * else is refused with PERMISSION_DENIED, an answered invitation is gone; the app token still adds
 * at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.js';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';
import { errorsOf, groupEvents } from '../../helpers/sdk-groups.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(CASES)('group invitations held for confirmation on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan', 'eve'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const members = async (owner: SdkClient, groupId: string) => (await owner.conn.listGroupMembers({ groupId, pageNum: 1, pageSize: 20 })).data;

  it('an invitation waits for the invitee: accepted it makes them a member, declined (by an invitee offline when invited) it adds nobody', async () => {
    const [ann, ben, cal] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal')]);
    const created = await ann.conn.createGroup({ data: { groupname: 'confirm', desc: '', members: ['ben'], public: false, approval: false, allowinvites: false, inviteNeedConfirm: true, maxusers: 10 } });
    const groupId = created.data.groupid as string;
    await ann.conn.inviteUsersToGroup({ groupId, users: ['cal', 'dan'] });
    expect((await groupEvents(cal, 'inviteToJoin', groupId))[0]).toMatchObject({ operation: 'inviteToJoin', id: groupId, from: 'ann', name: 'confirm' });
    // Nobody is added before answering.
    expect(await members(ann, groupId)).toEqual([{ owner: 'ann' }, { member: 'ben' }]);
    expect(cal.of('groupEvent').some((e: Any) => e.operation === 'directJoined')).toBe(false);

    // Only the invitee answers their invitation.
    await expect(ben.conn.acceptGroupInvite({ invitee: 'cal', groupId })).rejects.toMatchObject({ type: errorsOf(ben).PERMISSION_DENIED });
    await cal.conn.acceptGroupInvite({ invitee: 'cal', groupId });
    expect((await groupEvents(ann, 'acceptInvite', groupId))[0]).toMatchObject({ from: 'cal' });
    await groupEvents(ben, 'memberPresence', groupId, 'cal');
    expect(await members(ann, groupId)).toEqual([{ owner: 'ann' }, { member: 'ben' }, { member: 'cal' }]);
    // An answered invitation is gone.
    await expect(cal.conn.acceptGroupInvite({ invitee: 'cal', groupId })).rejects.toBeDefined();

    // dan was offline when invited: the invitation reaches them at their next login.
    const dan = await w.login('dan');
    expect((await groupEvents(dan, 'inviteToJoin', groupId))[0]).toMatchObject({ from: 'ann', name: 'confirm' });
    await dan.conn.rejectGroupInvite({ invitee: 'dan', groupId });
    expect((await groupEvents(ann, 'rejectInvite', groupId))[0]).toMatchObject({ from: 'dan' });
    expect(await members(ann, groupId)).toEqual([{ owner: 'ann' }, { member: 'ben' }, { member: 'cal' }]);
    await expect(dan.conn.rejectGroupInvite({ invitee: 'dan', groupId })).rejects.toBeDefined();
  });

  it('without inviteNeedConfirm, and by the app token, invited users are added at once', async () => {
    const [ann, eve] = await Promise.all([w.login('ann'), w.login('eve')]);
    const open = await ann.conn.createGroup({ data: { groupname: 'direct', desc: '', members: [], public: false, approval: false, allowinvites: false, inviteNeedConfirm: false, maxusers: 10 } });
    await ann.conn.inviteUsersToGroup({ groupId: open.data.groupid, users: ['eve'] });
    await groupEvents(eve, 'directJoined', open.data.groupid, 'ann');

    const confirm = await ann.conn.createGroup({ data: { groupname: 'confirm by app', desc: '', members: [], public: false, approval: false, allowinvites: false, inviteNeedConfirm: true, maxusers: 10 } });
    const byApp = await w.api('POST', `/chatgroups/${confirm.data.groupid}/invite`, { usernames: ['eve'] });
    expect(byApp.status).toBe(200);
    await groupEvents(eve, 'directJoined', confirm.data.groupid, 'admin');
    expect(await members(ann, confirm.data.groupid)).toEqual([{ owner: 'ann' }, { member: 'eve' }]);
  });
});

describe.each(ENGINES)('invite_verify over REST on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal']);
  });
  afterAll(async () => w?.close());

  it('answers the IM envelope; bad bodies, unknown groups, missing invitations and full groups are refused with nothing written', async () => {
    const ann = await w.token('ann');
    const as = (token: string, path: string, body: unknown) => call(w.t.app, token, 'POST', `${w.im.base}${path}`, body);
    const created = await as(ann, '/chatgroups', { groupname: 'tiny', desc: '', public: false, maxusers: 2, members: ['ben'], inviteNeedConfirm: true });
    const groupId = created.body.data.groupid as string;
    expect((await as(ann, `/chatgroups/${groupId}/invite`, { usernames: ['cal'] })).status).toBe(200);
    const cal = await w.token('cal');
    // The group is full (owner + ben, maxusers 2): accepting is refused and the invitation stays.
    const refused = await as(cal, `/chatgroups/${groupId}/invite_verify`, { invitee: 'cal', verifyResult: true });
    expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden_op' } });
    expect((await as(cal, `/chatgroups/${groupId}/invite_verify`, { invitee: 'cal' })).status).toBe(400);
    expect((await as(cal, '/chatgroups/999999/invite_verify', { invitee: 'cal', verifyResult: true })).status).toBe(404);
    expect((await as(ann, `/chatgroups/${groupId}/invite_verify`, { invitee: 'cal', verifyResult: false })).status).toBe(403);
    const declined = await as(cal, `/chatgroups/${groupId}/invite_verify`, { invitee: 'cal', verifyResult: false });
    expect(declined).toMatchObject({ status: 200, body: { data: { result: true, action: 'invite_verify', id: groupId, user: 'cal' } } });
    expect((await as(cal, `/chatgroups/${groupId}/invite_verify`, { invitee: 'cal', verifyResult: false })).body).toMatchObject({ error: 'service_resource_not_found' });
    const rows = await w.t.app.parley.storage.db.selectFrom('im_group_invites').selectAll().execute();
    expect(rows).toEqual([]);
  });
});
