/**
 * PostgreSQL becoming unreachable: readiness fails, requests answer 503 in their envelope, and the
 * app recovers by itself when the database is back.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, login, type TestApp } from '../helpers/app.js';
import { ENGINES, createTestDatabase } from '../helpers/engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

describe.runIf(ENGINES.includes('postgres'))('PostgreSQL outage', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('answers 503 while the database is unreachable and recovers without a restart', async () => {
    const db = await createTestDatabase('postgres');
    const url = new URL(db.config.databaseUrl as string);
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    t = await createTestApp('postgres', { db: { ...db, config: { ...db.config, databaseUrl: url.toString() } } });
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const headers = { authorization: `Bearer ${root}` };
    expect((await t.app.inject({ url: '/api/tenants', headers })).statusCode).toBe(200);
    const demo = t.app.parley.imDemoApp;
    if (!demo) throw new Error('the demo IM app is created on the first boot');
    const token = await t.app.inject({ method: 'POST', url: '/demo/demo/token', payload: { grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret } });
    const imHeaders = { authorization: `Bearer ${token.json().access_token}` };

    await proxy.cut();
    const during = await t.app.inject({ url: '/api/tenants', headers });
    expect(during.statusCode).toBe(503);
    expect(during.json()).toMatchObject({ status: 'FAIL', errorCode: 'service_unavailable' });
    expect(during.headers['retry-after']).toBe('1');
    // The IM surface answers in its own envelope.
    const im = await t.app.inject({ method: 'POST', url: '/demo/demo/users', headers: imHeaders, payload: { username: 'during-outage', password: 'pw-123456' } });
    expect(im.statusCode).toBe(503);
    expect(im.json()).toMatchObject({ error: 'service_unavailable', exception: 'ServiceUnavailableException' });
    const notReady = await t.app.inject('/readyz');
    expect(notReady.statusCode).toBe(503);
    // Named, not detailed: the error's text (the database's address) is only logged.
    expect(notReady.json().checks.storage).toBe('unreachable');
    expect(notReady.body).not.toMatch(/127\.0\.0\.1|ECONN|:\d{4,5}/);

    await proxy.restore();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) status = (await t.app.inject({ url: '/api/tenants', headers })).statusCode;
    expect(status).toBe(200);
    expect((await t.app.inject('/readyz')).statusCode).toBe(200);
    const after = await t.app.inject({ method: 'POST', url: '/demo/demo/users', headers: imHeaders, payload: { username: 'after-outage', password: 'pw-123456' } });
    expect(after.statusCode).toBe(200);
    // Keep db cleanup after the app is closed.
    const close = t.close;
    t.close = async () => {
      await close();
      await db.destroy();
    };
  });
});
