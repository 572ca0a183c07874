/**
 * A chat room's admins, mutes, block and allow lists and announcement over REST and the JSON socket
 * (the group code, under `/chatrooms`): a muted member's room message is refused on the REST send
 * and the JSON socket; a mute of all spares the owner, the admins and the allow list; a blocked
 * member is removed and cannot join again until unblocked; JSON-socket members get the operations
 * as `group_event` frames of `chat_type` chatroom, live only; mutes are `group_op_event` MUTE
 * records of type CHATROOM; a user token does only what its role allows (403 in the IM envelope).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import type { CallbackReceiver } from '../helpers/callback-receiver.js';
import { assertNoForeignRequests } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';
import { groupOpReceiver, msyncWorld, type MsyncWorld } from '../helpers/msync.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe.each(ENGINES)('chat-room roles over REST and the JSON socket on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  const user = async (name: string) => {
    const token = await w.token(name);
    return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(w.t.app, token, method, `${w.im.base}${path}`, payload);
  };
  const room = async (members: string[]) => (await w.api('POST', '/chatrooms', { name: 'lobby', description: '', maxusers: 10, owner: 'ann', members })).body.data.id as string;
  const say = (from: string, rid: string, msg: string) => w.api('POST', '/messages/chatrooms', { from, to: [rid], type: 'txt', body: { msg } });
  const connect = async (name: string) => {
    const socket = await SocketClient.connect(w.url, w.im.base, await w.token(name));
    await waitFor(() => w.online(name), (on) => on);
    return socket;
  };
  const events = (socket: SocketClient, rid: string) => socket.of('group_event').filter((f: Any) => f.group_id === rid);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan', 'eve']);
    ({ receiver } = await groupOpReceiver(w, 'rooms'));
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('a muted member is refused on REST and the JSON socket; members get the operations live as chatroom notices; MUTE records of type CHATROOM', async () => {
    const rid = await room(['ben', 'cal']);
    const ben = await connect('ben');
    expect((await w.api('POST', `/chatrooms/${rid}/admin`, { newadmin: 'cal' })).body.data).toEqual({ result: 'success', newadmin: 'cal' });
    expect((await w.api('GET', `/chatrooms/${rid}/admin`)).body.data).toEqual(['cal']);
    const muted = await w.api('POST', `/chatrooms/${rid}/mute`, { usernames: ['ben'], mute_duration: -1 });
    expect(muted.body.data).toEqual([{ result: true, expire: -1, user: 'ben' }]);
    expect((await w.api('GET', `/chatrooms/${rid}/mute`)).body.data).toEqual([{ user: 'ben', expire: -1 }]);
    expect((await call(w.t.app, await w.token('ben'), 'GET', `${w.im.base}/sdk/chatrooms/${rid}/mute/ben`)).body.data).toBe(true);
    expect((await w.api('POST', `/chatrooms/${rid}/announcement`, { announcement: 'hello' })).body.data).toEqual({ id: rid, result: true });
    expect((await w.api('GET', `/chatrooms/${rid}/announcement`)).body.data).toEqual({ announcement: 'hello' });

    const frames = await waitFor(() => events(ben, rid), (list) => list.length >= 3);
    expect(frames.map((f: Any) => [f.operation, f.chat_type, f.from, f.to])).toEqual([
      ['setAdmin', 'chatroom', 'admin', 'cal'],
      ['muteMember', 'chatroom', 'admin', 'ben'],
      ['updateAnnouncement', 'chatroom', 'admin', undefined],
    ]);
    expect(frames[1]).toMatchObject({ mute_until: -1 });
    expect(frames[2]).toMatchObject({ announcement: 'hello' });

    const rest = await say('ben', rid, 'muted?');
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error: 'forbidden_op', error_description: expect.stringContaining(`muted in chatroom ${rid}`) });
    const refused = await ben.request({ op: 'send', id: 's1', chat_type: 'chatroom', to: rid, bodies: [{ type: 'txt', msg: 'muted?' }] });
    expect(refused).toMatchObject({ op: 'error', id: 's1', error: 'forbidden_op', error_description: expect.stringContaining('muted') });
    expect((await say('cal', rid, 'the admin speaks')).status).toBe(200);

    expect((await w.api('DELETE', `/chatrooms/${rid}/mute/ben`)).body.data).toEqual([{ result: true, user: 'ben' }]);
    expect((await ben.request({ op: 'send', id: 's2', chat_type: 'chatroom', to: rid, bodies: [{ type: 'txt', msg: 'free' }] })).op).toBe('ack');
    const mutes = await waitFor(
      () => receiver.requests.filter((r) => r.path === '/callback').map((r) => JSON.parse(r.body) as Any).filter((r) => r.operation === 'MUTE' && r.id === rid),
      (list) => list.length >= 2,
      15_000,
    );
    expect(mutes.map((r) => [r.type, r.operator, r.payload])).toEqual([
      ['CHATROOM', '@ppAdmin', { member: ['ben'], expire_timestamp: -1, type: 'ADD' }],
      ['CHATROOM', '@ppAdmin', { member: ['ben'], type: 'REMOVE' }],
    ]);

    // Rooms keep nothing for offline members: cal, offline through all of the above, gets only what
    // happens once connected.
    const cal = await connect('cal');
    await w.api('POST', `/chatrooms/${rid}/announcement`, { announcement: 'second' });
    const later = await waitFor(() => events(cal, rid), (list) => list.length >= 1);
    expect(later.map((f: Any) => [f.operation, f.announcement])).toEqual([['updateAnnouncement', 'second']]);
    await Promise.all([ben.close(), cal.close()]);
  });

  it('a mute of all spares the owner, the admins and the allow list; a blocked member is removed and cannot join until unblocked', async () => {
    const rid = await room(['ben', 'cal', 'dan']);
    await w.api('POST', `/chatrooms/${rid}/admin`, { newadmin: 'cal' });
    const added = await w.api('POST', `/chatrooms/${rid}/white/users`, { usernames: ['dan'] });
    expect(added.body.data).toEqual([{ result: true, action: 'add_user_whitelist', user: 'dan', chatroomid: rid }]);
    expect((await w.api('GET', `/chatrooms/${rid}/white/users`)).body.data).toEqual(['dan']);
    expect((await w.api('GET', `/chatrooms/${rid}/white/users/dan`)).body.data).toEqual({ member: 'dan', white: true });
    expect((await w.api('POST', `/chatrooms/${rid}/ban`)).body.data).toEqual({ mute: true });
    expect((await say('ben', rid, 'anyone?')).status).toBe(403);
    for (const speaker of ['ann', 'cal', 'dan']) expect((await say(speaker, rid, `${speaker} speaks`)).status).toBe(200);
    expect((await w.api('DELETE', `/chatrooms/${rid}/ban`)).body.data).toEqual({ mute: false });
    expect((await say('ben', rid, 'again')).status).toBe(200);
    const removed = await w.api('DELETE', `/chatrooms/${rid}/white/users/dan`);
    expect(removed.body.data).toEqual([{ result: true, action: 'remove_user_whitelist', user: 'dan', chatroomid: rid }]);

    // Blocking: ben (connected) is removed and told; his join is refused until unblocked.
    const ben = await connect('ben');
    const blocked = await w.api('POST', `/chatrooms/${rid}/blocks/users/ben`);
    expect(blocked.body.data).toEqual([{ result: true, action: 'add_blocks', user: 'ben', chatroomid: rid }]);
    expect((await waitFor(() => events(ben, rid), (list) => list.length >= 1))[0]).toMatchObject({ operation: 'removeMember', chat_type: 'chatroom', to: 'ben' });
    expect((await w.api('GET', `/chatrooms/${rid}/blocks/users`)).body.data).toEqual(['ben']);
    expect((await w.api('GET', `/chatrooms/${rid}/users`)).body.data).toEqual([{ owner: 'ann' }, { member: 'cal' }, { member: 'dan' }]);
    expect(await ben.request({ op: 'join', id: 'j1', room: rid })).toMatchObject({ op: 'error', error: 'forbidden_op' });
    expect((await w.api('POST', `/chatrooms/${rid}/users/ben`)).status).toBe(403);
    const outside = await ben.request({ op: 'send', id: 's1', chat_type: 'chatroom', to: rid, bodies: [{ type: 'txt', msg: 'still here?' }] });
    expect(outside).toMatchObject({ op: 'error', error: 'forbidden_op' });
    const unblocked = await w.api('DELETE', `/chatrooms/${rid}/blocks/users/ben`);
    expect(unblocked.body.data).toEqual([{ result: true, action: 'remove_blocks', user: 'ben', chatroomid: rid }]);
    expect(await ben.request({ op: 'join', id: 'j2', room: rid })).toMatchObject({ op: 'ack' });
    // Several at once.
    const many = await w.api('POST', `/chatrooms/${rid}/blocks/users`, { usernames: ['ben', 'eve'] });
    expect(many.body.data.map((r: Any) => r.user)).toEqual(['ben', 'eve']);
    expect((await w.api('DELETE', `/chatrooms/${rid}/blocks/users/ben,eve`)).body.data.map((r: Any) => r.action)).toEqual(['remove_blocks', 'remove_blocks']);
    await ben.close();
  });

  it('user tokens: the owner and admins manage, members read, others 403 in the IM envelope; bad input changes nothing', async () => {
    const rid = await room(['ben', 'cal', 'dan']);
    const [ann, ben, cal, eve] = await Promise.all([user('ann'), user('ben'), user('cal'), user('eve')]);
    // A member makes no admin; the owner does.
    const denied = await ben('POST', `/chatrooms/${rid}/admin`, { newadmin: 'cal' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'forbidden_op', error_description: expect.any(String), timestamp: expect.any(Number) });
    expect((await ann('POST', `/chatrooms/${rid}/admin`, { newadmin: 'cal' })).status).toBe(200);
    expect((await ben('GET', `/chatrooms/${rid}/admin`)).body.data).toEqual(['cal']);
    // The admin mutes and blocks members, but not the owner; the member does none of it.
    expect((await cal('POST', `/chatrooms/${rid}/mute`, { usernames: ['dan'], mute_duration: 60_000 })).status).toBe(200);
    expect((await cal('POST', `/chatrooms/${rid}/mute`, { usernames: ['ann'], mute_duration: 60_000 })).status).toBe(403);
    expect((await ben('POST', `/chatrooms/${rid}/mute`, { usernames: ['dan'], mute_duration: 60_000 })).status).toBe(403);
    expect((await ben('GET', `/chatrooms/${rid}/mute`)).status).toBe(403);
    expect((await ben('POST', `/chatrooms/${rid}/ban`)).status).toBe(403);
    expect((await ben('GET', `/chatrooms/${rid}/blocks/users`)).status).toBe(403);
    expect((await ben('POST', `/chatrooms/${rid}/announcement`, { announcement: 'mine' })).status).toBe(403);
    expect((await ben('GET', `/chatrooms/${rid}/announcement`)).status).toBe(200);
    expect((await cal('POST', `/chatrooms/${rid}/white/users`, { usernames: ['ben'] })).status).toBe(200);
    // The admin removes a member, but not the owner or another admin.
    expect((await cal('DELETE', `/chatrooms/${rid}/users/dan`)).status).toBe(200);
    expect((await cal('DELETE', `/chatrooms/${rid}/users/ann`)).status).toBe(403);
    // A non-member reaches nothing; an unknown room is 404.
    expect((await eve('GET', `/chatrooms/${rid}/admin`)).status).toBe(403);
    expect((await w.api('GET', '/chatrooms/99999/mute')).status).toBe(404);
    // A group's id is no room's.
    const gid = (await w.api('POST', '/chatgroups', { groupname: 'g', description: '', public: true, maxusers: 10, owner: 'ann' })).body.data.groupid as string;
    expect((await w.api('GET', `/chatrooms/${gid}/admin`)).status).toBe(404);
    // Bad input: a bad duration names the field; one refused name changes nothing.
    const bad = await w.api('POST', `/chatrooms/${rid}/mute`, { usernames: ['ben'], mute_duration: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error_description).toContain('mute_duration');
    expect((await w.api('POST', `/chatrooms/${rid}/mute`, { usernames: ['ben', 'nobody'], mute_duration: 1000 })).status).toBe(404);
    expect((await w.api('POST', `/chatrooms/${rid}/blocks/users`, { usernames: ['ben', 'ann'] })).status).toBe(403);
    expect((await w.api('GET', `/chatrooms/${rid}/blocks/users`)).body.data).toEqual([]);
    expect((await w.api('GET', `/chatrooms/${rid}/mute`)).body.data).toEqual([{ user: 'dan', expire: expect.any(Number) }]);
    expect((await w.api('POST', `/chatrooms/${rid}/announcement`, { announcement: 'x'.repeat(513) })).status).toBe(400);
  });
});
