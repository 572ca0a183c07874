/**
 * Group and chat-room operations from every entry point (the app token over REST, a user token over
 * REST, msync chat-room joins) as `group_op_event` post-send callbacks in Easemob's record shape,
 * received by a real HTTP receiver, and as `group_event` frames on the JSON socket; and the bad
 * input of the user-side group routes: Easemob's errors, nothing half-written.
 */
import { callbackSecurity } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import type { CallbackReceiver } from '../helpers/callback-receiver.js';
import { assertNoForeignRequests } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';
import { groupOpReceiver, msyncWorld, type MsyncWorld } from '../helpers/msync.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(ENGINES)('group operations on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  let secret: string;
  const user = async (name: string) => {
    const token = await w.token(name);
    return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(w.t.app, token, method, `${w.im.base}${path}`, payload);
  };
  const records = () => receiver.requests.filter((r) => r.path === '/callback').map((r) => JSON.parse(r.body) as Any);
  const groupCount = async () => (await w.api('GET', '/chatgroups?limit=100')).body.count as number;

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan']);
    ({ receiver, secret } = await groupOpReceiver(w));
    // A rule of messages only hears nothing of groups.
    expect((await w.api('POST', '/callbacks/rules', { name: 'chats', url: `${receiver.url}/chats` })).body.data.event_types).toEqual(['chat', 'chat_offline']);
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it("sends one group_op_event record per operation, in Easemob's shape, whoever did it; JSON-socket members get group_event frames", async () => {
    const [ann, ben, dan] = await Promise.all([user('ann'), user('ben'), user('dan')]);
    const created = await w.api('POST', '/chatgroups', { groupname: 'ops', description: 'd', public: true, maxusers: 10, owner: 'ann', members: ['ben'] });
    const gid = created.body.data.groupid as string;
    const benSocket = await SocketClient.connect(w.url, w.im.base, await w.token('ben'));
    await waitFor(() => w.online('ben'), (on) => on);

    expect((await dan('POST', `/chatgroups/${gid}/apply`, { message: 'hi' })).status).toBe(200);
    // ben was added while offline: his directJoined was kept for him and comes first.
    const [joined, presence] = await benSocket.waitFrames('group_event', 2);
    expect(joined).toMatchObject({ operation: 'directJoined', group_id: gid, from: 'admin', to: 'ben' });
    expect(presence).toEqual({ op: 'group_event', operation: 'memberPresence', chat_type: 'groupchat', group_id: gid, group_name: 'ops', from: 'dan', member_count: 3, timestamp: expect.any(Number) });
    expect((await ben('DELETE', `/chatgroups/${gid}/quit`)).status).toBe(200);
    expect((await ann('POST', `/chatgroups/${gid}/invite`, { usernames: ['cal'] })).body.data).toEqual([{ result: true, action: 'invite', id: gid, user: 'cal' }]);
    expect((await ann('DELETE', `/chatgroups/${gid}/users/cal`)).status).toBe(200);
    expect((await ann('PUT', `/chatgroups/${gid}`, { newowner: 'dan' })).body.data).toEqual({ newowner: true });
    const room = (await w.api('POST', '/chatrooms', { name: 'hall', description: 'all', owner: 'ann' })).body.data.id as string;
    const cal = await w.login('cal');
    await cal.conn.joinChatRoom({ roomId: room });
    await cal.conn.leaveChatRoom({ roomId: room });
    expect((await dan('DELETE', `/chatgroups/${gid}`)).status).toBe(200);

    const expected = [
      { type: 'GROUP', operation: 'CREATE', operator: '@ppAdmin', id: gid },
      { type: 'GROUP', operation: 'JOIN', operator: '@ppAdmin', payload: { member: ['ben'], type: 'DIRECT' }, member_count: 2 },
      { type: 'GROUP', operation: 'JOIN', operator: 'dan', payload: { member: ['dan'], type: 'APPLY' }, member_count: 3 },
      { type: 'GROUP', operation: 'LEAVE', operator: 'ben', payload: { member: ['ben'], type: 'QUIT' } },
      { type: 'GROUP', operation: 'JOIN', operator: 'ann', payload: { member: ['cal'], type: 'INVITE' }, member_count: 3 },
      { type: 'GROUP', operation: 'LEAVE', operator: 'ann', payload: { member: ['cal'], type: 'KICK' } },
      { type: 'GROUP', operation: 'UPDATE', operator: 'ann', payload: { owner: 'ann', new_owner: 'dan', type: 'OWNER' } },
      { type: 'CHATROOM', operation: 'CREATE', operator: '@ppAdmin', id: room },
      { type: 'CHATROOM', operation: 'JOIN', operator: 'cal', payload: { member: ['cal'], type: 'DIRECT' }, member_count: 2 },
      { type: 'CHATROOM', operation: 'LEAVE', operator: 'cal', payload: { member: ['cal'], type: 'QUIT' } },
      { type: 'GROUP', operation: 'DELETE', operator: 'dan', id: gid },
      { type: 'GROUP', operation: 'LEAVE', operator: 'dan', payload: { member: ['ann', 'dan'], type: 'DELETE' } },
    ];
    const got = await waitFor(records, (list) => list.length >= expected.length, 15_000);
    expect(got).toHaveLength(expected.length);
    for (const record of expected) expect(got).toContainEqual(expect.objectContaining({ event: 'group_op_event', appkey: w.appKey, ...record }));

    const create = got.find((r) => r.operation === 'CREATE' && r.type === 'GROUP');
    expect(Object.keys(create)).toEqual(['callId', 'payload', 'appkey', 'id', 'type', 'event', 'operation', 'operator', 'timestamp', 'security']);
    expect(create.payload).toEqual({
      role: { ann: 'owner' },
      member: ['ben'],
      info: {
        owner: `${w.appKey}_ann`,
        created: expect.stringMatching(/^\d+$/),
        custom: '',
        description: 'd',
        mute: 'false',
        avatar: '',
        title: 'ops',
        max_users: '10',
        invite_need_confirm: 'false',
        public: 'true',
        allow_user_invites: 'false',
        disabled: 'false',
        last_modified: expect.stringMatching(/^\d+$/),
      },
    });
    for (const record of got) {
      expect(record.callId).toMatch(new RegExp(`^${w.appKey}_[0-9a-f-]{36}$`));
      expect(record.security).toBe(callbackSecurity(record.callId, secret, record.timestamp));
    }
    expect(new Set(got.map((r) => r.callId)).size).toBe(got.length);
    expect(receiver.requests.filter((r) => r.path === '/callback/chats')).toEqual([]);
    await benSocket.close();
  });

  it('refuses bad group bodies naming the field, another user as owner or {me}, and writes nothing of a refused request', async () => {
    const [ann, ben] = await Promise.all([user('ann'), user('ben')]);
    const before = await groupCount();
    for (const [body, field] of [
      [{ groupname: 'x', maxusers: 'lots' }, 'maxusers'],
      [{ groupname: 'x', public: 'yes' }, 'public'],
      [{ groupname: 'x', members: 'ben' }, 'members'],
      [{ groupname: '' }, 'groupname'],
      [{ groupname: 'x', approval: 1 }, 'approval'],
    ] as const) {
      const res = await ann('POST', '/chatgroups', body);
      expect(res.status, field).toBe(400);
      expect(res.body.error_description, field).toContain(field);
    }
    const other = await ann('POST', '/chatgroups', { groupname: 'x', owner: 'ben' });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe('forbidden_op');
    const noOwner = await w.api('POST', '/chatgroups', { groupname: 'x', public: true });
    expect(noOwner.status).toBe(400);
    expect(noOwner.body.error_description).toContain('owner');
    const ghost = await ann('POST', '/chatgroups', { groupname: 'x', members: ['ben', 'nobody'] });
    expect(ghost.status).toBe(404);
    expect(ghost.body.error).toBe('service_resource_not_found');
    expect(await groupCount()).toBe(before);

    // Unknown fields are accepted and ignored; the group is private unless asked.
    const made = await ann('POST', '/chatgroups', { groupname: 'mine', desc: 'by the SDK', colour: 'blue', members: ['ben'] });
    expect(made.status).toBe(200);
    const gid = made.body.data.groupid as string;
    expect((await ann('GET', `/chatgroups/${gid}`)).body.data[0]).toMatchObject({ owner: 'ann', public: false, description: 'by the SDK', affiliations_count: 2 });
    expect(await groupCount()).toBe(before + 1);

    // {me} must be the token's user.
    for (const path of ['/users/ben/joined_chatgroups', '/chatgroups/user/ben']) {
      const res = await ann('GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body.error, path).toBe('forbidden_op');
    }
    // An invitation naming an unknown user adds nobody; a non-member cannot become owner.
    const invite = await ann('POST', `/chatgroups/${gid}/invite`, { usernames: ['cal', 'nobody'] });
    expect(invite.status).toBe(404);
    const owner = await ann('PUT', `/chatgroups/${gid}`, { newowner: 'cal' });
    expect(owner.status).toBe(400);
    expect(owner.body.error_description).toContain('newowner');
    expect((await ann('GET', `/chatgroups/${gid}/users`)).body.data).toEqual([{ owner: 'ann' }, { member: 'ben' }]);
    // A member's owner-only action, and the app token where only a user can act.
    expect((await ben('DELETE', `/chatgroups/${gid}`)).body.error).toBe('forbidden_op');
    expect((await w.api('POST', `/chatgroups/${gid}/apply`, {})).status).toBe(403);
    expect((await ann('GET', `/chatgroups/${gid}`)).status).toBe(200);
  });

  it('lists public groups a page at a time, newest first', async () => {
    const ann = await user('ann');
    const ids: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) ids.push((await ann('POST', '/chatgroups', { groupname: name, public: true })).body.data.groupid);
    await ann('POST', '/chatgroups', { groupname: 'hidden' });
    const first = await ann('GET', '/publicchatgroups?limit=2&version=v3');
    expect(first.body.data.map((g: Any) => g.name)).toEqual(['p3', 'p2']);
    const second = await ann('GET', `/publicchatgroups?limit=2&cursor=${first.body.cursor}`);
    expect(second.body.data.map((g: Any) => g.name)).toContain('p1');
    expect([...first.body.data, ...second.body.data].map((g: Any) => g.name)).not.toContain('hidden');
  });
});
