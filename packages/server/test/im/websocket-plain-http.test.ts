/**
 * The WebSocket endpoints asked over plain HTTP: `GET` (and `HEAD`) of the msync gateway (`/ws`,
 * `/websocket`) and of the JSON socket (`/{org}/{app}/ws`, with a user token) answer 426
 * `upgrade_required` in the IM envelope with `Upgrade: websocket`, not an empty 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { createImApp, createUsers, userToken, type ImAppHandle } from '../helpers/im.js';

describe('WebSocket endpoints over plain HTTP', () => {
  let t: TestApp;
  let im: ImAppHandle;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'ann');
  });
  afterAll(async () => t?.close());

  it('answers 426 upgrade_required on /ws, /websocket and the JSON socket', async () => {
    const token = await userToken(t.app, im, 'ann');
    for (const [url, bearer] of [['/ws', undefined], ['/websocket', undefined], [`${im.base}/ws`, token]] as const) {
      const res = await call(t.app, bearer, 'GET', url);
      expect(res.status, url).toBe(426);
      expect(res.headers.upgrade, url).toBe('websocket');
      expect(res.body, url).toMatchObject({ error: 'upgrade_required', exception: 'UpgradeRequiredException' });
      expect(res.body.error_description, url).toContain(`${url.split('?')[0]} is a WebSocket endpoint`);
      const head = await t.app.inject({ method: 'HEAD', url, ...(bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {}) });
      expect(head.statusCode, `HEAD ${url}`).toBe(426);
    }
  });
});
