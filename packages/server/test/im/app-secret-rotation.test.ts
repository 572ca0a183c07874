/**
 * IM app client secret rotation with overlap (contract 6.6 applied to `POST /management/apps/{org}/{app}/secret`):
 * during the overlap both secrets grant app tokens; it ends at its time (injected clock) or early
 * with `DELETE …/secret/previous`; an overlap outside 0–604800 s is a 400 in the IM envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTestApp, login, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';

const DAY_MS = 86_400_000;

describe.each(ENGINES)('IM app client secret rotation on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let root: string;
  const grant = (target: ImAppHandle, clientSecret: string) =>
    call(t.app, undefined, 'POST', `${target.base}/token`, { grant_type: 'client_credentials', client_id: target.clientId, client_secret: clientSecret });
  const rotate = (name: string, body?: unknown) => call(t.app, root, 'POST', `/management/apps/acme/${name}/secret`, body);

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('lets both secrets grant tokens during the default 24 h overlap, then only the new one', async () => {
    const app = await createImApp(t.app, 'acme', 'overlap');
    const res = await rotate('overlap');
    expect(res.status).toBe(200);
    const fresh = res.body.data.client_secret as string;
    expect((await grant(app, app.clientSecret)).status).toBe(200);
    expect((await grant(app, fresh)).status).toBe(200);
    expect((await grant(app, 'f'.repeat(48))).body.error).toBe('invalid_grant');
    clock.advance(DAY_MS - 1);
    expect((await grant(app, app.clientSecret)).status).toBe(200);
    clock.advance(1);
    expect((await grant(app, app.clientSecret)).body.error).toBe('invalid_grant');
    expect((await grant(app, fresh)).status).toBe(200);
  });

  it('ends the overlap early with DELETE …/secret/previous; a rotation during an overlap keeps only the secret it replaced', async () => {
    const app = await createImApp(t.app, 'acme', 'early');
    const second = (await rotate('early', { overlap_seconds: 3600 })).body.data.client_secret as string;
    const third = (await rotate('early')).body.data.client_secret as string;
    expect((await grant(app, app.clientSecret)).body.error).toBe('invalid_grant');
    expect((await grant(app, second)).status).toBe(200);
    const ended = await call(t.app, root, 'DELETE', '/management/apps/acme/early/secret/previous');
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ action: 'delete', organization: 'acme', applicationName: 'early', data: { appkey: 'acme#early', client_id: app.clientId } });
    expect((await grant(app, second)).body.error).toBe('invalid_grant');
    expect((await grant(app, third)).status).toBe(200);
    expect((await call(t.app, undefined, 'DELETE', '/management/apps/acme/early/secret/previous')).status).toBe(401);
    expect((await call(t.app, root, 'DELETE', '/management/apps/acme/nothing/secret/previous')).status).toBe(404);
  });

  it('refuses an overlap outside 0–604800 s with 400, leaving the secret as it was', async () => {
    const app = await createImApp(t.app, 'acme', 'bounds');
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 604_801 }, { overlap_seconds: 'day' }, { extra: true }]) {
      const res = await rotate('bounds', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBeDefined();
    }
    expect((await grant(app, app.clientSecret)).status).toBe(200);
  });
});
