/**
 * User attributes driven by the real SDKs, `easemob-websdk` and `agora-chat` (`updateUserInfo`
 * form-encoded, `fetchUserInfoById`), and over REST: merge, batch read with properties, delete, Easemob's size
 * limit, another user's attributes refused, nothing half-written, gone with their user.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import { assertNoForeignRequests, SDK_PACKAGES } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { msyncWorld, type MsyncWorld } from '../helpers/msync.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

describe.each(CASES)('user attributes on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it('the SDK sets its own attributes and reads them and others\' back', async () => {
    const ann = await w.login('ann');
    const set = await ann.conn.updateUserInfo({ nickname: 'Ann é', avatarurl: 'https://cdn.example.com/a.png?x=1&y=2', gender: 2, ext: JSON.stringify({ vip: true }) });
    expect(set.data).toEqual({ nickname: 'Ann é', avatarurl: 'https://cdn.example.com/a.png?x=1&y=2', gender: '2', ext: '{"vip":true}' });
    // One key at a time merges into what is stored.
    await ann.conn.updateUserInfo('sign', 'hello');
    const ben = await w.login('ben');
    await ben.conn.updateUserInfo({ nickname: 'Ben' });
    const all = await ben.conn.fetchUserInfoById(['ann', 'ben', 'cal']);
    expect(all.data).toEqual({
      ann: { nickname: 'Ann é', avatarurl: 'https://cdn.example.com/a.png?x=1&y=2', gender: '2', ext: '{"vip":true}', sign: 'hello' },
      ben: { nickname: 'Ben' },
    });
    const some = await ben.conn.fetchUserInfoById('ann', ['nickname', 'birth']);
    expect(some.data).toEqual({ ann: { nickname: 'Ann é' } });
    expect((await w.api('GET', '/metadata/user/ann')).body.data.sign).toBe('hello');
  });

  it("a user token may not set, read or delete another user's attributes (403 forbidden_op); the app token may", async () => {
    const cal = await w.token('cal');
    const base = w.im.base;
    for (const [method, payload] of [['PUT', { nickname: 'x' }], ['GET', undefined], ['DELETE', undefined]] as const) {
      const res = await call(w.t.app, cal, method, `${base}/metadata/user/dan`, payload);
      expect(res.status, method).toBe(403);
      expect(res.body.error).toBe('forbidden_op');
    }
    expect((await w.api('PUT', '/metadata/user/dan', { nickname: 'Dan', level: 3 })).body.data).toEqual({ nickname: 'Dan', level: '3' });
    expect((await call(w.t.app, cal, 'POST', `${base}/metadata/user/get`, { targets: ['dan'], properties: ['level'] })).body.data).toEqual({ dan: { level: '3' } });
  });

  it('refuses a write past 2 KiB or with a bad name, keeping what was stored', async () => {
    await w.api('PUT', '/metadata/user/cal', { nickname: 'Cal' });
    const big = await w.api('PUT', '/metadata/user/cal', { sign: 'x'.repeat(2040) });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe('illegal_argument');
    const badName = await w.api('PUT', '/metadata/user/cal', { nickname: 'C', 'bad name': 'x' });
    expect(badName.status).toBe(400);
    expect(badName.body.error_description).toContain('bad name');
    const empty = await w.api('PUT', '/metadata/user/cal', {});
    expect(empty.status).toBe(400);
    expect((await w.api('GET', '/metadata/user/cal')).body.data).toEqual({ nickname: 'Cal' });
    expect((await w.api('PUT', '/metadata/user/nobody', { nickname: 'x' })).status).toBe(404);
    expect((await w.api('POST', '/metadata/user/get', { targets: Array.from({ length: 101 }, (_, i) => `u${i}`) })).status).toBe(400);
  });

  it('delete removes them (also for a user without any), and deleting the user removes them too', async () => {
    await w.api('PUT', '/metadata/user/dan', { nickname: 'Dan' });
    const del = await w.api('DELETE', '/metadata/user/dan');
    expect(del.status).toBe(200);
    expect(del.body.data).toBe(true);
    expect((await w.api('GET', '/metadata/user/dan')).body.data).toEqual({});
    expect((await w.api('DELETE', '/metadata/user/dan')).body.data).toBe(true);
    await w.api('POST', '/users', { username: 'eve', password: 'pw-123456' });
    await w.api('PUT', '/metadata/user/eve', { nickname: 'Eve' });
    await w.api('DELETE', '/users/eve');
    await w.api('POST', '/users', { username: 'eve', password: 'pw-123456' });
    expect((await w.api('GET', '/metadata/user/eve')).body.data).toEqual({});
  });
});
