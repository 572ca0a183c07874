/**
 * User tokens on the user-scoped IM routes (contract 6.8): a path naming a user takes that user's
 * own token or the app token, a group's reads take a member's token, anything else is 403
 * `forbidden_op` in the IM envelope; admin-only routes stay the app token's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, userToken, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('user-token access to IM routes on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let ann: string;
  let groupId: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'ann', 'ben', 'cal');
    ann = await userToken(t.app, im, 'ann');
    const created = await call(t.app, im.adminToken, 'POST', `${im.base}/chatgroups`, { groupname: 'g', public: true, owner: 'ben', members: ['ann'] });
    groupId = created.body.data.groupid as string;
  });
  afterAll(async () => t?.close());

  it("a user token reads its own user and counters, another user's is 403 forbidden_op in the IM envelope", async () => {
    expect((await call(t.app, ann, 'GET', `${im.base}/users/ann`)).status).toBe(200);
    expect((await call(t.app, ann, 'GET', `${im.base}/users/ANN/offline_msg_count`)).status).toBe(200);
    for (const path of ['/users/ben', '/users/ben/offline_msg_count', '/users/ben/offline_msg_status/1']) {
      const res = await call(t.app, ann, 'GET', `${im.base}${path}`);
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden_op', exception: 'ForbiddenOpException', timestamp: expect.any(Number), duration: expect.any(Number) });
    }
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/users/ben`)).status).toBe(200);
  });

  it("members read their group and its members; a stranger is 403 forbidden_op; an unknown group is 404", async () => {
    const info = await call(t.app, ann, 'GET', `${im.base}/chatgroups/${groupId}`);
    expect(info.status).toBe(200);
    expect(info.body.data[0]).toMatchObject({ id: groupId, owner: 'ben' });
    expect((await call(t.app, ann, 'GET', `${im.base}/chatgroups/${groupId}/users`)).status).toBe(200);
    const cal = await userToken(t.app, im, 'cal');
    const refused = await call(t.app, cal, 'GET', `${im.base}/chatgroups/${groupId}/users`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden_op');
    expect((await call(t.app, cal, 'GET', `${im.base}/chatgroups/999999`)).status).toBe(404);
    expect((await call(t.app, im.adminToken, 'GET', `${im.base}/chatgroups/${groupId}`)).status).toBe(200);
  });

  it('admin-only routes stay the app token\'s, members included; owner-only ones are refused to members', async () => {
    const res = await call(t.app, ann, 'POST', `${im.base}/chatgroups/${groupId}/users/ann`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
    // A plain member may not remove another (removing oneself is leaving, group-membership.ts).
    const kick = await call(t.app, ann, 'DELETE', `${im.base}/chatgroups/${groupId}/users/ben`);
    expect(kick.status).toBe(403);
    expect(kick.body.error).toBe('forbidden_op');
  });
});
