/**
 * IM administration (contract 6.2, Easemob's shapes): the system admin's app list and secret
 * rotation; the app admin's paged user list, nickname and password edits; group and chat-room
 * lists, the groups a user joined, and group and room edits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, PASSWORD, userToken, type ImAppHandle } from '../helpers/im.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe.each(ENGINES)('IM administration on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let clock: FakeClock;
  let root: string;
  const api = (method: Method, path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const grant = (clientSecret: string, target = im) =>
    call(t.app, undefined, 'POST', `${target.base}/token`, { grant_type: 'client_credentials', client_id: target.clientId, client_secret: clientSecret });

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    root = await login(t.app, ADMIN.username, ADMIN.password);
    im = await createImApp(t.app, 'acme', 'shop');
  });
  afterAll(async () => t?.close());

  it('lists apps with app key and client id, never a secret, for the system admin only', async () => {
    const res = await call(t.app, root, 'GET', '/management/apps');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/management/apps', action: 'get' });
    const apps = res.body.entities as Array<Record<string, unknown>>;
    expect(res.body.count).toBe(apps.length);
    expect(apps.map((a) => a.appkey)).toEqual(expect.arrayContaining(['demo#demo', 'acme#shop']));
    const shop = apps.find((a) => a.appkey === 'acme#shop');
    expect(shop).toEqual({ appkey: 'acme#shop', org_name: 'acme', app_name: 'shop', application: expect.stringMatching(/^[0-9a-f-]{36}$/), client_id: im.clientId, created: expect.any(Number) });
    expect(JSON.stringify(res.body)).not.toContain(im.clientSecret);
    expect(JSON.stringify(res.body)).not.toContain('secret');

    const { adminToken: tenantAdmin } = await createTenant(t.app, root, 'Tenant IM');
    const forbidden = await call(t.app, tenantAdmin, 'GET', '/management/apps');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('forbidden');
    const none = await call(t.app, undefined, 'GET', '/management/apps');
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthorized');
    // An IM app token is not a console token.
    expect((await call(t.app, im.adminToken, 'GET', '/management/apps')).status).toBe(401);
  });

  it('rotates the client secret without overlap: the new one grants tokens, the old one no longer does, issued tokens live on', async () => {
    const other = await createImApp(t.app, 'acme', 'rotating');
    const before = await grant(other.clientSecret, other);
    expect(before.status).toBe(200);

    const res = await call(t.app, root, 'POST', '/management/apps/acme/rotating/secret', { overlap_seconds: 0 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/management/apps/acme/rotating/secret', action: 'post', organization: 'acme', applicationName: 'rotating' });
    expect(res.body.data).toEqual({ appkey: 'acme#rotating', application: res.body.application, client_id: other.clientId, client_secret: expect.any(String) });
    const fresh = res.body.data.client_secret as string;
    expect(fresh).not.toBe(other.clientSecret);

    const old = await grant(other.clientSecret, other);
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('invalid_grant');
    expect((await grant(fresh, other)).status).toBe(200);
    // Tokens issued with the old secret keep working until they expire.
    expect((await call(t.app, other.adminToken, 'GET', `${other.base}/users`)).status).toBe(200);
    expect((await call(t.app, before.body.access_token, 'GET', `${other.base}/users`)).status).toBe(200);
    // Other apps are untouched.
    expect((await grant(im.clientSecret)).status).toBe(200);

    const { adminToken: tenantAdmin } = await createTenant(t.app, root, 'Tenant Rot');
    expect((await call(t.app, tenantAdmin, 'POST', '/management/apps/acme/rotating/secret')).status).toBe(403);
    expect((await call(t.app, undefined, 'POST', '/management/apps/acme/rotating/secret')).status).toBe(401);
    const unknown = await call(t.app, root, 'POST', '/management/apps/acme/nothing/secret');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('organization_application_not_found');
  });

  it("issues an app-admin token to the system admin without the secret (the console's open)", async () => {
    const res = await call(t.app, root, 'POST', '/management/apps/acme/shop/token');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/management/apps/acme/shop/token', action: 'post', organization: 'acme', applicationName: 'shop' });
    expect(res.body.data).toEqual({ access_token: expect.stringMatching(/^YWMt/), expires_in: 3600, application: res.body.application });
    const token = res.body.data.access_token as string;
    // An app-admin token of this app only, which expires like any other.
    expect((await call(t.app, token, 'GET', `${im.base}/users`)).status).toBe(200);
    const other = await createImApp(t.app, 'acme', 'opened');
    expect((await call(t.app, token, 'GET', `${other.base}/users`)).status).toBe(401);
    clock.advance(3600 * 1000);
    expect((await call(t.app, token, 'GET', `${im.base}/users`)).body.error).toBe('auth_bad_access_token');

    const { adminToken: tenantAdmin } = await createTenant(t.app, root, 'Tenant Open');
    expect((await call(t.app, tenantAdmin, 'POST', '/management/apps/acme/shop/token')).status).toBe(403);
    expect((await call(t.app, undefined, 'POST', '/management/apps/acme/shop/token')).status).toBe(401);
    expect((await call(t.app, im.adminToken, 'POST', '/management/apps/acme/shop/token')).status).toBe(401);
    const unknown = await call(t.app, root, 'POST', '/management/apps/acme/nothing/token');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('organization_application_not_found');
  });

  it('checks a grant against the stored secret, so a rotation by another instance holds at once', async () => {
    const other = await createImApp(t.app, 'acme', 'elsewhere');
    expect((await grant(other.clientSecret, other)).status).toBe(200);
    // Another instance rotated it: only the stored hash changed, this process's cached app did not.
    await t.app.parley.storage.db.updateTable('im_apps').set({ client_secret_hash: 'f'.repeat(64) }).where('org_name', '=', 'acme').where('app_name', '=', 'elsewhere').execute();
    expect((await grant(other.clientSecret, other)).body.error).toBe('invalid_grant');
  });

  it('pages users oldest first with an opaque cursor until no cursor is answered', async () => {
    const shop = await createImApp(t.app, 'acme', 'paged');
    const admin = (method: Method, path: string, payload?: unknown) => call(t.app, shop.adminToken, method, `${shop.base}${path}`, payload);
    // Two batches at two instants: a batch shares one created time, so the name orders within it.
    await createUsers(t.app, shop, 'm3', 'm1', 'm2');
    clock.advance(1000);
    await createUsers(t.app, shop, 'a9', 'z1');
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: number[] = [];
    do {
      const res = await admin('GET', `/users?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ path: '/users', action: 'get', organization: 'acme', applicationName: 'paged' });
      expect(res.body.count).toBe(res.body.entities.length);
      pages.push(res.body.count);
      seen.push(...res.body.entities.map((u: { username: string }) => u.username));
      cursor = res.body.cursor;
      // A user added while paging, created later, is met at the end and nothing repeats.
      if (pages.length === 1) {
        clock.advance(1000);
        await createUsers(t.app, shop, 'late');
      }
    } while (cursor);
    expect(seen).toEqual(['m1', 'm2', 'm3', 'a9', 'z1', 'late']);
    expect(pages).toEqual([2, 2, 2]);

    const all = await admin('GET', '/users');
    expect(all.body.count).toBe(6);
    expect(all.body.cursor).toBeUndefined();
    expect(all.body.entities[0]).toEqual({ uuid: expect.any(String), type: 'user', created: expect.any(Number), modified: expect.any(Number), username: 'm1', activated: true });
  });

  it('refuses a bad cursor or limit and a user token', async () => {
    await createUsers(t.app, im, 'u1', 'u2');
    for (const query of ['cursor=not-a-cursor', `cursor=${Buffer.from('["groups",1,"x"]').toString('base64url')}`, 'limit=0', 'limit=101', 'limit=many']) {
      const res = await api('GET', `/users?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description, query).toMatch(query.startsWith('cursor') ? /cursor/ : /limit/);
    }
    const u1 = await userToken(t.app, im, 'u1');
    const res = await call(t.app, u1, 'GET', `${im.base}/users`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it('sets and clears a nickname, updating modified', async () => {
    await createUsers(t.app, im, 'nick');
    const created = (await api('GET', '/users/nick')).body.entities[0];
    clock.advance(5000);
    const res = await api('PUT', '/users/NICK', { nickname: 'Nicky' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/users/NICK', action: 'put' });
    expect(res.body.entities).toEqual([{ ...created, nickname: 'Nicky', modified: created.modified + 5000 }]);
    expect((await api('GET', '/users/nick')).body.entities[0].nickname).toBe('Nicky');
    const cleared = await api('PUT', '/users/nick', { nickname: '' });
    expect(cleared.body.entities[0].nickname).toBeUndefined();

    const missing = await api('PUT', '/users/ghost', { nickname: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('service_resource_not_found');
    for (const body of [{ nickname: 'x'.repeat(101) }, { nickname: 'x', password: 'sneaky-1' }, {}]) {
      const bad = await api('PUT', '/users/nick', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toBe('illegal_argument');
    }
    const own = await userToken(t.app, im, 'nick');
    expect((await call(t.app, own, 'PUT', `${im.base}/users/nick`, { nickname: 'me' })).status).toBe(403);
  });

  it('resets a password without the old one; the old one stops working, issued tokens do not', async () => {
    await createUsers(t.app, im, 'pat');
    const issued = await userToken(t.app, im, 'pat');
    const res = await api('PUT', '/users/pat/password', { newpassword: 'brand-new-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/users/pat/password', action: 'set user password', organization: 'acme' });
    expect(res.body.data).toBeUndefined();

    const oldGrant = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'pat', password: PASSWORD });
    expect(oldGrant.body.error).toBe('invalid_grant');
    const newGrant = await call(t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'pat', password: 'brand-new-1' });
    expect(newGrant.status).toBe(200);
    expect((await call(t.app, issued, 'GET', `${im.base}/users/pat`)).status).toBe(200);

    const short = await api('PUT', '/users/pat/password', { newpassword: '12345' });
    expect(short.status).toBe(400);
    expect(short.body.error_description).toContain('newpassword');
    const absent = await api('PUT', '/users/pat/password', {});
    expect(absent.status).toBe(400);
    expect(absent.body.error_description).toContain('newpassword');
    expect((await api('PUT', '/users/ghost/password', { newpassword: 'whatever-1' })).status).toBe(404);
    // Easemob documents this for the app admin only; a user token, even the user's own, gets 403.
    const own = await call(t.app, newGrant.body.access_token, 'PUT', `${im.base}/users/pat/password`, { newpassword: 'mine-again-1' });
    expect(own.status).toBe(403);
  });
});

describe.each(ENGINES)('IM group and chat-room administration on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let clock: FakeClock;
  const api = (method: Method, path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const createGroup = async (groupname: string, owner: string, members: string[] = []) => {
    clock.advance(1000);
    const res = await api('POST', '/chatgroups', { groupname, public: true, owner, members });
    expect(res.status).toBe(200);
    return res.body.data.groupid as string;
  };
  const createRoom = async (name: string, owner: string, members: string[] = []) => {
    clock.advance(1000);
    const res = await api('POST', '/chatrooms', { name, description: '', owner, members });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    im = await createImApp(t.app, 'acme', 'groups');
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
  });
  afterAll(async () => t?.close());

  it('pages groups and chat rooms newest first, each list apart, with member counts', async () => {
    const g1 = await createGroup('first', 'alice', ['bob']);
    const g2 = await createGroup('second', 'bob');
    const g3 = await createGroup('third', 'carol', ['alice', 'bob']);
    const r1 = await createRoom('room one', 'alice', ['bob', 'carol']);

    const first = await api('GET', '/chatgroups?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ path: '/chatgroups', action: 'get', count: 2, cursor: expect.any(String) });
    expect(first.body.data).toEqual([
      { owner: 'carol', groupid: g3, affiliations: 3, type: 'group', last_modified: expect.stringMatching(/^\d+$/), groupname: 'third' },
      { owner: 'bob', groupid: g2, affiliations: 1, type: 'group', last_modified: expect.any(String), groupname: 'second' },
    ]);
    const second = await api('GET', `/chatgroups?limit=2&cursor=${first.body.cursor}`);
    expect(second.body.data.map((g: { groupid: string }) => g.groupid)).toEqual([g1]);
    expect(second.body.cursor).toBeUndefined();

    const rooms = await api('GET', '/chatrooms');
    expect(rooms.status).toBe(200);
    expect(rooms.body.data).toEqual([{ id: r1, name: 'room one', owner: 'alice', affiliations_count: 3 }]);
    expect(rooms.body.count).toBe(1);
    // A group list's cursor is not a room list's.
    expect((await api('GET', `/chatrooms?cursor=${first.body.cursor}`)).status).toBe(400);
  });

  it("lists a user's groups, latest joined first, without chat rooms, with Easemob's paging", async () => {
    const carol = 'carol';
    const joined = await api('GET', `/users/${carol}/joined_chatgroups`);
    expect(joined.status).toBe(200);
    const names = joined.body.data.map((g: { groupname: string }) => g.groupname);
    expect(names).toEqual(['third']);
    const gA = await createGroup('carol-a', 'alice');
    clock.advance(1000);
    expect((await api('POST', `/chatgroups/${gA}/users/carol`)).status).toBe(200);
    const all = await api('GET', '/users/carol/joined_chatgroups');
    expect(all.body.data).toEqual([
      { groupid: gA, groupname: 'carol-a', id: gA, name: 'carol-a', permission: 'member', disabled: false },
      expect.objectContaining({ groupname: 'third' }),
    ]);
    expect(all.body.count).toBe(2);
    const page2 = await api('GET', '/users/carol/joined_chatgroups?pagesize=1&pagenum=2');
    expect(page2.body.data.map((g: { groupname: string }) => g.groupname)).toEqual(['third']);
    const missing = await api('GET', '/users/ghost/joined_chatgroups');
    expect(missing.status).toBe(404);
    expect((await api('GET', '/users/carol/joined_chatgroups?pagesize=0')).status).toBe(400);
  });

  it('edits a group and answers which fields changed', async () => {
    const id = await createGroup('editable', 'alice', ['bob']);
    const before = (await api('GET', `/chatgroups/${id}`)).body.data[0];
    clock.advance(7000);
    const res = await api('PUT', `/chatgroups/${id}`, { groupname: 'edited', description: 'new words', maxusers: 2, public: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: `/chatgroups/${id}`, action: 'put' });
    expect(res.body.data).toEqual({ groupname: true, description: true, maxusers: true, public: true });
    const after = (await api('GET', `/chatgroups/${id}`)).body.data[0];
    expect(after).toMatchObject({ name: 'edited', description: 'new words', maxusers: 2, public: false, created: before.created });
    const listed = (await api('GET', '/chatgroups?limit=100')).body.data.find((g: { groupid: string }) => g.groupid === id);
    expect(Number(listed.last_modified)).toBe(clock.now());

    const partial = await api('PUT', `/chatgroups/${id}`, { description: 'only this' });
    expect(partial.body.data).toEqual({ description: true });
    expect((await api('GET', `/chatgroups/${id}`)).body.data[0]).toMatchObject({ name: 'edited', description: 'only this' });
  });

  it('refuses maxusers below the current members and changes nothing', async () => {
    const id = await createGroup('crowded', 'alice', ['bob', 'carol']);
    const res = await api('PUT', `/chatgroups/${id}`, { groupname: 'renamed', maxusers: 2 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('illegal_argument');
    expect(res.body.error_description).toContain('maxusers');
    expect(res.body.error_description).toContain('3 current members');
    expect((await api('GET', `/chatgroups/${id}`)).body.data[0]).toMatchObject({ name: 'crowded', maxusers: 200 });
    // Exactly the members is allowed, and then the group is full.
    expect((await api('PUT', `/chatgroups/${id}`, { maxusers: 3 })).status).toBe(200);
    await createUsers(t.app, im, 'dave');
    expect((await api('POST', `/chatgroups/${id}/users/dave`)).status).toBe(403);

    const room = await createRoom('small room', 'alice', ['bob']);
    const tooSmall = await api('PUT', `/chatrooms/${room}`, { maxusers: 1 });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.error_description).toContain('2 current members');
  });

  it("edits a chat room's name, description and maxusers", async () => {
    const id = await createRoom('lobby', 'alice');
    const res = await api('PUT', `/chatrooms/${id}`, { name: 'hall', description: 'big', maxusers: 50 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ groupname: true, description: true, maxusers: true });
    expect((await api('GET', `/chatrooms/${id}`)).body.data[0]).toMatchObject({ name: 'hall', description: 'big', maxusers: 50 });
    // A room is not a group and has no public flag to edit.
    expect((await api('PUT', `/chatgroups/${id}`, { groupname: 'x' })).status).toBe(404);
    expect((await api('PUT', `/chatrooms/${id}`, { public: false })).status).toBe(400);
  });

  it('validates edits: unknown fields, an empty body, unknown ids, user tokens', async () => {
    const id = await createGroup('strict', 'alice');
    for (const body of [{}, { groupid: '1' }, { groupname: '' }, { maxusers: 0 }, { description: 'x'.repeat(513) }]) {
      const res = await api('PUT', `/chatgroups/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
    }
    const missing = await api('PUT', '/chatgroups/123456789', { groupname: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('service_resource_not_found');
    // The lists are the app token's; another user's groups and another's group are not the user's.
    const bob = await userToken(t.app, im, 'bob');
    for (const [method, path, body] of [
      ['GET', '/chatgroups', undefined],
      ['GET', '/chatrooms', undefined],
      ['GET', '/users/alice/joined_chatgroups', undefined],
      ['PUT', `/chatgroups/${id}`, { groupname: 'mine' }],
    ] as const) {
      expect((await call(t.app, bob, method, `${im.base}${path}`, body)).status, `${method} ${path}`).toBe(403);
    }
  });
});
