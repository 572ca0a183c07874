/**
 * No credential reaches the logs, even at `trace`: a full run (console login, an IM app and user
 * token, a socket authenticated with `?access_token=`, a REST association with its Client Secret
 * signing a message over the send-message lane and through Fastify's route, a callback rule and
 * its rotated secret) is logged, and the whole log is searched for every token and secret the run
 * created. URLs are logged with credential-bearing query parameters redacted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/kernel/logger.js';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, PASSWORD, SocketClient, userToken } from '../helpers/im.js';

describe('redactUrl', () => {
  it.each([
    ['/x/ws?access_token=abc', '/x/ws?access_token=[redacted]'],
    ['/x?limit=5&token=abc&cursor=2', '/x?limit=5&token=[redacted]&cursor=2'],
    ['/x?password=p&client_secret=s&secret=t&signature=u&api_key=v', '/x?password=[redacted]&client_secret=[redacted]&secret=[redacted]&signature=[redacted]&api_key=[redacted]'],
    ['/x?access%5Ftoken=abc&ACCESS_TOKEN=def', '/x?access%5Ftoken=[redacted]&ACCESS_TOKEN=[redacted]'],
    ['/x?limit=5', '/x?limit=5'],
    ['/x', '/x'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe.each(ENGINES)('logs of a full run on %s', (engine) => {
  let t: TestApp;
  let logged = '';
  let closed = false;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { LOG_LEVEL: 'trace' }, deps: { logStream: { write: (line: string) => void (logged += line) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    if (!closed) await t?.close();
  });

  it('holds none of the tokens and secrets it created', async () => {
    const { app } = t;
    const { port } = app.server.address() as { port: number };
    const secrets: string[] = [ADMIN.password, 'tenant-admin-pw', PASSWORD];

    const root = await login(app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(app, root, 'Logs');
    secrets.push(root, tenant.adminToken);

    const im = await createImApp(app);
    await createUsers(app, im, 'alice', 'bob');
    const alice = await userToken(app, im, 'alice');
    secrets.push(im.clientSecret, im.adminToken, alice);
    // The socket's documented auth, and the same on a REST route.
    const socket = await SocketClient.connect(`http://127.0.0.1:${port}`, im.base, alice);
    socket.ws.close();
    const viaQuery = await fetch(`http://127.0.0.1:${port}${im.base}/users/alice?access_token=${encodeURIComponent(alice)}`);
    expect(viaQuery.status).toBe(200);
    const unknown = await fetch(`http://127.0.0.1:${port}/nowhere?token=${root}&client_secret=${im.clientSecret}&password=${ADMIN.password}`);
    expect(unknown.status).toBe(404);

    const rule = await call(app, im.adminToken, 'POST', `${im.base}/callbacks/rules`, { name: 'logs', url: 'http://127.0.0.1:9/cb' });
    expect(rule.status).toBe(200);
    const rotated = await call(app, im.adminToken, 'POST', `${im.base}/callbacks/rules/logs/secret`);
    expect(rotated.status).toBe(200);
    secrets.push(rule.body.data.secret as string, rotated.body.data.secret as string);

    const assoc = await createAssociation(app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    secrets.push(assoc.clientSecret);
    const overLane = await postRaw(app, assoc, customerMessage({ from: 'logs-1' }), { url: `${assoc.postMessageUrl}?signature=lane-query-secret` });
    const viaRoute = await postRaw(app, assoc, customerMessage({ from: 'logs-2' }), { url: `${assoc.postMessageUrl}?token=route-query-secret`, inject: true });
    expect([overLane.status, viaRoute.status]).toEqual([200, 200]);
    secrets.push('lane-query-secret', 'route-query-secret');

    // Closing writes the last lines (shutdown, the lane's answers are logged after they are sent).
    await t.close();
    closed = true;
    // The log holds the requests, their URLs with the credentials replaced.
    expect(logged).toContain('"incoming request"');
    expect(logged).toContain('/ws?access_token=[redacted]');
    expect(logged).toContain('/users/alice?access_token=[redacted]');
    expect(logged).toContain('messages?signature=[redacted]');
    for (const secret of secrets) expect(logged, `a secret of ${secret.length} characters`).not.toContain(secret);
  });
});
