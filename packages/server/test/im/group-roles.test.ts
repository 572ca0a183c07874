/**
 * A group's admins, mutes and lists over REST and the JSON socket: a muted member's group message
 * is refused on the REST send and the JSON socket too; JSON-socket members get the role operations
 * as `group_event` frames; mutes and unmutes are `group_op_event` MUTE records; and bad input is
 * answered with Easemob's errors, nothing half-written (wrong role 403, unknown user or group 404,
 * a bad duration 400 naming the field, one refused name refuses the whole call).
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

describe.each(ENGINES)('group roles over REST and the JSON socket on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  const user = async (name: string) => {
    const token = await w.token(name);
    return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(w.t.app, token, method, `${w.im.base}${path}`, payload);
  };
  const group = async (members: string[]) => (await w.api('POST', '/chatgroups', { groupname: 'roles', description: '', public: true, maxusers: 10, owner: 'ann', members })).body.data.groupid as string;

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan']);
    ({ receiver } = await groupOpReceiver(w));
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('a muted member is refused on the REST send and the JSON socket; JSON-socket members get the operations; MUTE records', async () => {
    const gid = await group(['ben', 'cal']);
    const ben = await SocketClient.connect(w.url, w.im.base, await w.token('ben'));
    await waitFor(() => w.online('ben'), (on) => on);
    expect((await w.api('POST', `/chatgroups/${gid}/admin`, { newadmin: 'cal' })).body.data).toEqual({ result: 'success', newadmin: 'cal' });
    const muted = await w.api('POST', `/chatgroups/${gid}/mute`, { usernames: ['ben'], mute_duration: -1 });
    expect(muted.body.data).toEqual([{ result: true, expire: -1, user: 'ben' }]);
    expect((await w.api('POST', `/chatgroups/${gid}/announcement`, { announcement: 'hello' })).status).toBe(200);
    // ben was offline when the group was made with him: its directJoined was kept for him and
    // handed to his socket beside the live notices.
    const all = await ben.waitFrames('group_event', 4);
    expect(all.filter((f: Any) => f.operation === 'directJoined')).toMatchObject([{ to: 'ben' }]);
    const frames = all.filter((f: Any) => f.operation !== 'directJoined');
    expect(frames.map((f: Any) => [f.operation, f.from, f.to])).toEqual([
      ['setAdmin', 'admin', 'cal'],
      ['muteMember', 'admin', 'ben'],
      ['updateAnnouncement', 'admin', undefined],
    ]);
    expect(frames[1]).toMatchObject({ mute_until: -1 });
    expect(frames[2]).toMatchObject({ announcement: 'hello' });

    const rest = await w.api('POST', '/messages/chatgroups', { from: 'ben', to: [gid], type: 'txt', body: { msg: 'muted?' } });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toBe('forbidden_op');
    const refused = await ben.request({ op: 'send', id: 's1', chat_type: 'groupchat', to: gid, bodies: [{ type: 'txt', msg: 'muted?' }] });
    expect(refused).toMatchObject({ op: 'error', id: 's1', error: 'forbidden_op', error_description: expect.stringContaining('muted') });

    expect((await w.api('DELETE', `/chatgroups/${gid}/mute/ben`)).body.data).toEqual([{ result: true, user: 'ben' }]);
    expect((await w.api('POST', '/messages/chatgroups', { from: 'ben', to: [gid], type: 'txt', body: { msg: 'free' } })).status).toBe(200);
    const mutes = await waitFor(
      () => receiver.requests.filter((r) => r.path === '/callback').map((r) => JSON.parse(r.body) as Any).filter((r) => r.operation === 'MUTE' && r.id === gid),
      (list) => list.length >= 2,
      15_000,
    );
    expect(mutes.map((r) => [r.operator, r.payload])).toEqual([
      ['@ppAdmin', { member: ['ben'], expire_timestamp: -1, type: 'ADD' }],
      ['@ppAdmin', { member: ['ben'], type: 'REMOVE' }],
    ]);
    await ben.close();
  });

  it("bad input: wrong role 403, unknown user or group 404, a bad duration 400 naming the field; one refused name changes nothing", async () => {
    const gid = await group(['ben', 'cal']);
    const [ben, dan] = await Promise.all([user('ben'), user('dan')]);
    // Wrong role: a member makes no admin, mutes nobody; a non-member reaches nothing.
    expect((await ben('POST', `/chatgroups/${gid}/admin`, { newadmin: 'cal' })).body.error).toBe('forbidden_op');
    expect((await ben('POST', `/chatgroups/${gid}/mute`, { usernames: ['cal'], mute_duration: 1000 })).status).toBe(403);
    expect((await dan('GET', `/chatgroups/${gid}/admin`)).status).toBe(403);
    expect((await ben('GET', `/chatgroups/${gid}/blocks/users`)).status).toBe(403);
    // Unknown user or group.
    const unknownUser = await w.api('POST', `/chatgroups/${gid}/mute`, { usernames: ['ben', 'nobody'], mute_duration: 1000 });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.error_description).toContain('nobody');
    expect((await w.api('GET', '/chatgroups/99999/mute')).status).toBe(404);
    expect((await w.api('POST', `/chatgroups/${gid}/admin`, { newadmin: 'dan' })).status).toBe(403);
    // A bad duration names the field.
    for (const mute_duration of [0, -2, 1.5]) {
      const bad = await w.api('POST', `/chatgroups/${gid}/mute`, { usernames: ['ben'], mute_duration });
      expect(bad.status).toBe(400);
      expect(bad.body.error_description).toContain('mute_duration');
    }
    expect((await w.api('POST', `/chatgroups/${gid}/mute`, { usernames: [], mute_duration: 1000 })).status).toBe(400);
    // All or nothing: a non-member (dan) among them mutes none; the owner among them blocks none.
    expect((await w.api('POST', `/chatgroups/${gid}/mute`, { usernames: ['ben', 'dan'], mute_duration: 1000 })).status).toBe(403);
    expect((await w.api('POST', `/chatgroups/${gid}/blocks/users`, { usernames: ['ben', 'ann'] })).status).toBe(403);
    expect((await w.api('GET', `/chatgroups/${gid}/mute`)).body.data).toEqual([]);
    expect((await w.api('GET', `/chatgroups/${gid}/blocks/users`)).body.data).toEqual([]);
    expect((await w.api('GET', `/chatgroups/${gid}/users`)).body.data).toHaveLength(3);
    expect((await w.api('POST', `/chatgroups/${gid}/announcement`, { announcement: 'x'.repeat(513) })).status).toBe(400);
    expect((await w.api('DELETE', `/chatgroups/${gid}/admin/ben`)).status).toBe(404);
  });
});
