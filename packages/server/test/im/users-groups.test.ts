/** IM users, groups and chat rooms (contract 4.1, 4.2) with Easemob-style errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, PASSWORD, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('IM users, groups and chat rooms on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
  });
  afterAll(async () => t?.close());

  it('registers one user or an array, folding names to lower case', async () => {
    const one = await api('POST', '/users', { username: 'Alice', password: PASSWORD, nickname: 'Al' });
    expect(one.status).toBe(200);
    expect(one.body.entities).toEqual([expect.objectContaining({ username: 'alice', nickname: 'Al', type: 'user', uuid: expect.any(String) })]);
    const many = await api('POST', '/users', [
      { username: 'bob', password: PASSWORD },
      { username: 'carol.x_1-2', password: PASSWORD },
    ]);
    expect(many.status).toBe(200);
    expect(many.body.entities.map((u: { username: string }) => u.username)).toEqual(['bob', 'carol.x_1-2']);
    const read = await api('GET', '/users/ALICE');
    expect(read.body.entities[0].username).toBe('alice');
  });

  it('rejects bad and duplicate user names', async () => {
    for (const username of ['has space', 'ünïcode', 'a'.repeat(65), 'semi;colon']) {
      const res = await api('POST', '/users', { username, password: PASSWORD });
      expect(res.status, username).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain('username');
    }
    const dup = await api('POST', '/users', { username: 'ALICE', password: PASSWORD });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toBe('duplicate_unique_property_exists');
    // A batch with one taken name stores none of them.
    const batch = await api('POST', '/users', [
      { username: 'dave', password: PASSWORD },
      { username: 'bob', password: PASSWORD },
    ]);
    expect(batch.body.error).toBe('duplicate_unique_property_exists');
    expect((await api('GET', '/users/dave')).status).toBe(404);
    const missingPw = await api('POST', '/users', { username: 'erin' });
    expect(missingPw.status).toBe(400);
    expect(missingPw.body.error_description).toContain('password');
  });

  it('deletes a user and answers 404 service_resource_not_found afterwards', async () => {
    await createUsers(t.app, im, 'temp');
    const del = await api('DELETE', '/users/temp');
    expect(del.status).toBe(200);
    expect(del.body.entities[0].username).toBe('temp');
    const again = await api('GET', '/users/temp');
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('service_resource_not_found');
    const token = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'temp', password: PASSWORD });
    expect(token.body.error).toBe('invalid_grant');
  });

  it('creates groups (public required) and manages members', async () => {
    const noPublic = await api('POST', '/chatgroups', { groupname: 'g', owner: 'alice' });
    expect(noPublic.status).toBe(400);
    expect(noPublic.body.error).toBe('illegal_argument');
    expect(noPublic.body.error_description).toContain('public');
    const unknownOwner = await api('POST', '/chatgroups', { groupname: 'g', public: true, owner: 'ghost' });
    expect(unknownOwner.status).toBe(404);

    const created = await api('POST', '/chatgroups', { groupname: 'team', description: 'd', public: false, maxusers: 3, owner: 'alice', members: ['bob'] });
    expect(created.status).toBe(200);
    const groupId = created.body.data.groupid as string;
    expect(groupId).toMatch(/^\d+$/);

    expect((await api('GET', `/chatgroups/${groupId}/users`)).body.data).toEqual([{ owner: 'alice' }, { member: 'bob' }]);
    const add = await api('POST', `/chatgroups/${groupId}/users/carol.x_1-2`);
    expect(add.body.data).toMatchObject({ result: true, action: 'add_member', user: 'carol.x_1-2' });
    const full = await api('POST', `/chatgroups/${groupId}/users/dave`);
    expect(full.status).toBe(404); // dave does not exist
    await createUsers(t.app, im, 'dave');
    const overMax = await api('POST', `/chatgroups/${groupId}/users/dave`);
    expect(overMax.status).toBe(403);
    expect(overMax.body.error).toBe('forbidden_op');

    expect((await api('DELETE', `/chatgroups/${groupId}/users/bob`)).status).toBe(200);
    expect((await api('DELETE', `/chatgroups/${groupId}/users/bob`)).status).toBe(404);
    expect((await api('DELETE', `/chatgroups/${groupId}/users/alice`)).body.error).toBe('forbidden_op');
    const detail = await api('GET', `/chatgroups/${groupId}`);
    expect(detail.body.data[0]).toMatchObject({ id: groupId, name: 'team', public: false, maxusers: 3, owner: 'alice', affiliations_count: 2 });

    expect((await api('DELETE', `/chatgroups/${groupId}`)).status).toBe(200);
    expect((await api('GET', `/chatgroups/${groupId}/users`)).body.error).toBe('service_resource_not_found');
    expect((await api('GET', '/chatgroups/abc/users')).status).toBe(400);
  });

  it('creates chat rooms and manages their members', async () => {
    const missingDescription = await api('POST', '/chatrooms', { name: 'r', owner: 'alice' });
    expect(missingDescription.status).toBe(400);
    const created = await api('POST', '/chatrooms', { name: 'lobby', description: 'all', owner: 'alice', members: ['bob'] });
    expect(created.status).toBe(200);
    const roomId = created.body.data.id as string;
    expect((await api('POST', `/chatrooms/${roomId}/users/carol.x_1-2`)).status).toBe(200);
    expect((await api('GET', `/chatrooms/${roomId}/users`)).body.data).toEqual([{ owner: 'alice' }, { member: 'bob' }, { member: 'carol.x_1-2' }]);
    // A room id is not a group id.
    expect((await api('GET', `/chatgroups/${roomId}/users`)).status).toBe(404);
  });
});
