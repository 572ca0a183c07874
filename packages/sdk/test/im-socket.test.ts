/** The SDK socket client against a real, listening Parley (SQLite and PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImMessageFrame } from '@parley/protocol';
import { backoffDelay, CLOSE_REPLACED, ImSocket, ImSocketError } from '../src/im-socket.js';
import { call, createTestApp, type TestApp } from '../../server/test/helpers/app.js';
import { ENGINES } from '../../server/test/helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../../server/test/helpers/im.js';

describe('backoffDelay', () => {
  it('grows by the factor up to the cap, with bounded jitter', () => {
    const none = () => 0.5; // zero spread
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, { initialDelayMs: 100 }, none))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(20, { initialDelayMs: 100, maxDelayMs: 5000 }, none)).toBe(5000);
    expect(backoffDelay(1, { initialDelayMs: 1000, jitter: 0.2 }, () => 0)).toBe(800);
    expect(backoffDelay(1, { initialDelayMs: 1000, jitter: 0.2 }, () => 1)).toBe(1200);
  });
});

describe.each(ENGINES)('ImSocket against Parley on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  const clients: ImSocket[] = [];
  const client = (username: string, extra: Partial<ConstructorParameters<typeof ImSocket>[0]> = {}) => {
    const socket = new ImSocket({ baseUrl: url, org: im.org, app: im.name, token: () => userToken(t.app, im, username), reconnect: { initialDelayMs: 50, maxDelayMs: 200 }, ...extra });
    clients.push(socket);
    return socket;
  };
  const inbox = (socket: ImSocket) => {
    const frames: ImMessageFrame[] = [];
    socket.on('message', (m) => frames.push(m));
    return frames;
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app, 'sdk', 'test');
    url = await listen(t.app);
    await createUsers(t.app, im, 'amy', 'bo', 'cy');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('connects, sends with an ack, receives, joins rooms and reports server errors', async () => {
    const amy = client('amy');
    const bo = client('bo');
    const boInbox = inbox(bo);
    await amy.connect();
    await bo.connect();
    const appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, ['bo']), (s) => s.size === 1);

    const { msgId } = await amy.send({ chatType: 'chat', to: 'bo', bodies: [{ type: 'txt', msg: 'hi bo' }] });
    await waitFor(() => boInbox.length, (n) => n === 1);
    expect(boInbox[0]).toMatchObject({ msg_id: msgId, from: 'amy', payload: { bodies: [{ type: 'txt', msg: 'hi bo' }] } });

    const room = await call(t.app, im.adminToken, 'POST', `${im.base}/chatrooms`, { name: 'r', description: 'd', owner: 'amy' });
    await bo.join(room.body.data.id);
    await amy.send({ chatType: 'chatroom', to: room.body.data.id, bodies: [{ type: 'txt', msg: 'room hello' }] });
    await waitFor(() => boInbox.length, (n) => n === 2);
    await bo.leave(room.body.data.id);

    const failure = await amy.send({ chatType: 'chat', to: 'nobody', bodies: [{ type: 'txt', msg: 'x' }] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ImSocketError);
    expect((failure as ImSocketError).code).toBe('service_resource_not_found');
  });

  it('rejects a bad token on connect', async () => {
    const bad = client('amy', { token: 'nope', reconnect: false });
    await expect(bad.connect()).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('reconnects after the server drops it and receives again', async () => {
    const bo = client('bo');
    const boInbox = inbox(bo);
    const reconnects: number[] = [];
    bo.on('reconnecting', ({ attempt }) => reconnects.push(attempt));
    await bo.connect();
    const appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, ['bo']), (s) => s.size === 1);

    // The server closes every socket of bo; the client comes back on its own.
    let reopened = 0;
    bo.on('open', () => reopened++);
    t.app.parley.im.presence.disconnect(appId, 'bo', 'test');
    await waitFor(() => reopened, (n) => n >= 1, 5000);
    expect(reconnects[0]).toBe(1);
    expect(bo.connected).toBe(true);

    const sent = await call(t.app, im.adminToken, 'POST', `${im.base}/messages/users`, { from: 'amy', to: ['bo'], type: 'txt', body: { msg: 'after reconnect' } });
    await waitFor(() => boInbox.find((m) => m.msg_id === sent.body.data.bo), (m) => m !== undefined);
  });

  it('stays closed when a newer socket of the same user replaces it (4206), instead of closing that one in turn', async () => {
    const cy = client('cy');
    const reconnects: number[] = [];
    cy.on('reconnecting', ({ attempt }) => reconnects.push(attempt));
    await cy.connect();
    const closed = new Promise<{ code: number; reason: string }>((resolve) => cy.once('close', resolve));
    // The default cap is 10 sockets a user: the eleventh closes the oldest, this client.
    // One token, taken once: password checks of one account run a few at a time (login back-off).
    const token = await userToken(t.app, im, 'cy');
    const others = await Promise.all(Array.from({ length: 10 }, () => SocketClient.connect(url, im.base, token)));
    expect(await closed).toEqual({ code: CLOSE_REPLACED, reason: 'logged in on another device' });
    expect(reconnects).toEqual([]);
    expect(cy.connected).toBe(false);
    await Promise.all(others.map((o) => o.close()));
  });
});
