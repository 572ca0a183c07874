/**
 * The `q` filter of the paged IM admin lists (contract 6.2, beyond Easemob's shapes): users whose
 * username or nickname contains it, groups and chat rooms whose name contains it or whose id it
 * is; case-insensitive (non-ASCII letters too), paged with the same cursors, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

type Method = 'GET' | 'POST' | 'PUT';

describe.each(ENGINES)('searching the IM admin lists on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let clock: FakeClock;
  const api = (method: Method, path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const names = (res: { body: { entities: Array<{ username: string }> } }) => res.body.entities.map((u) => u.username);

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000' } });
    clock = t.clock as FakeClock;
    im = await createImApp(t.app, 'acme', 'search');
    for (const name of ['support-anna', 'support-ben', 'carl', 'dora', 'support-eve']) {
      clock.advance(1000);
      await createUsers(t.app, im, name);
    }
    expect((await api('PUT', '/users/carl', { nickname: 'Carl from Support' })).status).toBe(200);
    expect((await api('PUT', '/users/dora', { nickname: 'Dora Ärgerlich' })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('finds users by a part of the username or the nickname, case-insensitively', async () => {
    expect(names(await api('GET', '/users?q=SUPPORT'))).toEqual(['support-anna', 'support-ben', 'carl', 'support-eve']);
    expect(names(await api('GET', '/users?q=ärger'))).toEqual(['dora']);
    expect(names(await api('GET', '/users?q=ÄRG'))).toEqual(['dora']);
    expect(names(await api('GET', '/users?q=%20ben%20'))).toEqual(['support-ben']);
    const none = await api('GET', '/users?q=nobody');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ entities: [], count: 0 });
    expect(none.body.cursor).toBeUndefined();
    // An empty q filters nothing; a q over 128 characters is refused.
    expect((await api('GET', '/users?q=')).body.count).toBe(5);
    expect((await api('GET', `/users?q=${'x'.repeat(129)}`)).status).toBe(400);
    // A substring is taken literally: LIKE wildcards match nothing here.
    expect((await api('GET', '/users?q=%25')).body.count).toBe(0);
    expect((await api('GET', '/users?q=_')).body.count).toBe(0);
  });

  it('pages a filtered user list with its cursor', async () => {
    const first = await api('GET', '/users?q=support&limit=3');
    expect(names(first)).toEqual(['support-anna', 'support-ben', 'carl']);
    const second = await api('GET', `/users?q=support&limit=3&cursor=${encodeURIComponent(first.body.cursor as string)}`);
    expect(names(second)).toEqual(['support-eve']);
    expect(second.body.cursor).toBeUndefined();
  });

  it('finds groups and chat rooms by a part of the name or by id, each list apart', async () => {
    const group = async (groupname: string) => {
      clock.advance(1000);
      return (await api('POST', '/chatgroups', { groupname, public: true, owner: 'carl' })).body.data.groupid as string;
    };
    const escalations = await group('Spring Escalations');
    const billing = await group('Billing questions');
    clock.advance(1000);
    const room = (await api('POST', '/chatrooms', { name: 'Escalations live', description: '', owner: 'dora' })).body.data.id as string;

    const groups = await api('GET', '/chatgroups?q=escalation');
    expect(groups.status).toBe(200);
    expect(groups.body.data.map((g: { groupid: string }) => g.groupid)).toEqual([escalations]);
    expect((await api('GET', `/chatgroups?q=${billing}`)).body.data.map((g: { groupname: string }) => g.groupname)).toEqual(['Billing questions']);
    const rooms = await api('GET', '/chatrooms?q=ESCALATIONS');
    expect(rooms.body.data).toEqual([{ id: room, name: 'Escalations live', owner: 'dora', affiliations_count: 1 }]);
    expect((await api('GET', `/chatrooms?q=${escalations}`)).body.count).toBe(0);
    // Newest first, paged within the filter.
    const first = await api('GET', '/chatgroups?q=s&limit=1');
    expect(first.body.data.map((g: { groupid: string }) => g.groupid)).toEqual([billing]);
    const next = await api('GET', `/chatgroups?q=s&limit=1&cursor=${first.body.cursor as string}`);
    expect(next.body.data.map((g: { groupid: string }) => g.groupid)).toEqual([escalations]);
  });
});
