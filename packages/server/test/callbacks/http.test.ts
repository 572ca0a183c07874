/**
 * The callback surface over HTTP (contract 4.4–4.6) with the real IM core: configuration and
 * rules, messages sent through the IM REST API and sockets reaching a scriptable receiver,
 * moderation, and the exception-store endpoints with every status code of spec 7.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callbackSecurity, type CallbackRecord } from '@parley/protocol';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('callbacks over HTTP on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, token: string | undefined = im.adminToken) =>
    call(t.app, token, method, `${im.base}${path}`, payload);
  const settle = async () => {
    await t.app.parley.jobs.idle();
    await t.app.parley.callbacks.bans.flush();
  };

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
    receiver = await CallbackReceiver.start();
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('configures the service and rules: defaults, validation, 409, at most 4, secret rotation, delete', async () => {
    expect((await api('GET', '/callbacks/service')).body.data).toEqual({ enabled: false, store_failed: false });
    const put = await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ path: '/callbacks/service', action: 'put', organization: im.org, applicationName: im.name, data: { enabled: true, store_failed: true } });

    const created = await api('POST', '/callbacks/rules', { name: 'main_1', url: receiver.url });
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({
      name: 'main_1',
      url: receiver.url,
      enabled: true,
      event_types: ['chat', 'chat_offline'],
      chat_types: ['chat', 'groupchat'],
      message_types: ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'],
      sources: ['sdk', 'rest'],
      secret: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'active',
      ban_count: 0,
      banned_until: null,
      redrive: false,
      previous_secret_expires_at: null,
    });

    for (const [body, field] of [
      [{ name: 'bad name', url: receiver.url }, 'name'],
      [{ name: 'x'.repeat(33), url: receiver.url }, 'name'],
      [{ name: 'ok', url: 'ftp://x/y' }, 'url'],
      [{ name: 'ok', url: receiver.url, event_types: ['chat', 'nope'] }, 'event_types'],
      [{ name: 'ok', url: receiver.url, chat_types: [] }, 'chat_types'],
      [{ name: 'ok', url: receiver.url, sources: ['web'] }, 'sources'],
    ] as const) {
      const res = await api('POST', '/callbacks/rules', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain(field);
    }
    expect((await api('POST', '/callbacks/rules', { name: 'main_1', url: receiver.url })).status).toBe(409);
    for (const name of ['r2', 'r3', 'r4']) expect((await api('POST', '/callbacks/rules', { name, url: receiver.url })).status).toBe(200);
    const fifth = await api('POST', '/callbacks/rules', { name: 'r5', url: receiver.url });
    expect(fifth.status).toBe(400);
    expect(fifth.body.error).toBe('callback_rule_limit');

    const listed = await api('GET', '/callbacks/rules');
    expect(listed.body.entities.map((r: { name: string }) => r.name)).toEqual(['main_1', 'r2', 'r3', 'r4']);
    const rotated = await api('POST', '/callbacks/rules/main_1/secret');
    expect(rotated.body.data.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    const updated = await api('PUT', '/callbacks/rules/r2', { enabled: false, message_types: ['img'] });
    expect(updated.body.data).toMatchObject({ name: 'r2', enabled: false, message_types: ['img'] });
    expect((await api('DELETE', '/callbacks/rules/r2')).status).toBe(200);
    expect((await api('GET', '/callbacks/rules/r2')).status).toBe(404);
    expect((await api('PUT', '/callbacks/rules/r2', { enabled: true })).status).toBe(404);
  });

  it('refuses internal callback URLs when private callbacks are not allowed', async () => {
    await t.close();
    t = await createTestApp(engine, { clock, env: { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'false' } });
    im = await createImApp(t.app);
    const res = await api('POST', '/callbacks/rules', { name: 'r', url: 'http://127.0.0.1:9/cb' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_callback_url');
  });

  it('REST and socket messages reach the rule, signed; moderated messages never do', async () => {
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: false });
    const secret = (await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url })).body.data.secret as string;
    await api('PUT', '/moderation/sensitive-words', { words: ['forbidden'] });

    const sent = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'hello' }, ext: { k: 'v' } });
    expect(sent.status).toBe(200);
    const msgId = sent.body.data.bob as string;
    const blocked = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'this is forbidden' } });
    expect(blocked.status).toBe(403);

    const url = await listen(t.app);
    const socket = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'carol'));
    try {
      await waitFor(async () => (await t.app.parley.im.apps.requireApp(im.org, im.name)).id, (v) => !!v);
      const ack = await socket.request({ op: 'send', id: 'c1', chat_type: 'chat', to: 'alice', bodies: [{ type: 'txt', msg: 'from socket' }], ext: {} });
      expect(ack.op).toBe('ack');
      const denied = await socket.request({ op: 'send', id: 'c2', chat_type: 'chat', to: 'alice', bodies: [{ type: 'txt', msg: 'forbidden words' }], ext: {} });
      expect(denied.op).toBe('error');
      await settle();
    } finally {
      await socket.close();
    }

    const bodies = receiver.bodies<CallbackRecord>();
    // REST to offline bob: chat + chat_offline; socket to offline alice: chat + chat_offline; nothing moderated.
    expect(bodies.map((b) => `${b.from}>${b.to}:${b.eventType}`).sort()).toEqual(['alice>bob:chat', 'alice>bob:chat_offline', 'carol>alice:chat', 'carol>alice:chat_offline']);
    expect(bodies.some((b) => JSON.stringify(b.payload).includes('forbidden'))).toBe(false);
    const rest = bodies.find((b) => b.msg_id === msgId && b.eventType === 'chat') as CallbackRecord;
    expect(rest).toMatchObject({ callId: expect.stringMatching(new RegExp(`^${im.org}#${im.name}_`)), chat_type: 'chat', payload: { bodies: [{ type: 'txt', msg: 'hello' }], ext: { k: 'v' } } });
    for (const b of bodies) expect(b.security).toBe(callbackSecurity(b.callId, secret, b.timestamp));
  });

  it('exception store: info, retry under both spellings with targetUrl, listing, keeping callIds and records', async () => {
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url, event_types: ['chat'] });
    receiver.respond = () => ({ status: 500 });
    clock.set(Date.UTC(2026, 10, 21, 9, 5, 0));
    await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'one' } });
    await api('POST', '/messages/users', { from: 'alice', to: ['carol'], type: 'txt', body: { msg: 'two' } });
    await settle();
    expect(receiver.requests).toHaveLength(4);

    const info = await api('GET', '/callbacks/storage/info');
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ path: '/callbacks/storage/info', action: 'get', data: [{ date: '202611210900', size: 2, retry: 0 }] });
    const listing = await api('GET', '/callbacks/storage/202611210900');
    expect(listing.body.entities.map((r: { last_error: string }) => r.last_error)).toEqual(['HTTP 500', 'HTTP 500']);
    const storedIds = listing.body.entities.map((r: { callId: string }) => r.callId).sort();

    const other = await CallbackReceiver.start('/other');
    try {
      const retry = await api('POST', '/callbacks/storage/retry', { date: '202611210900', retry: 0, targetUrl: other.url });
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ path: '/callbacks/storage/retry', action: 'post', data: 'success' });
      await settle();
      expect(other.bodies<CallbackRecord>().map((b) => b.callId).sort()).toEqual(storedIds);

      receiver.respond = () => ({ status: 200 });
      // Past the first re-send's share of the app's re-send rate (PARLEY_CALLBACK_RESEND_PER_SECOND).
      clock.advance(1_000);
      const singular = await api('POST', '/callback/storage/retry', { date: '202611210900' });
      expect(singular.body.data).toBe('success');
      await settle();
      expect(receiver.bodies<CallbackRecord>().slice(4).map((b) => b.callId).sort()).toEqual(storedIds);
    } finally {
      await other.close();
    }
    expect((await api('GET', '/callbacks/storage/info')).body.data).toEqual([{ date: '202611210900', size: 2, retry: 2 }]);
    expect((await api('POST', '/callbacks/storage/retry', { date: '202611210910' })).body.data).toBe('failure');
  });

  it('storage endpoints answer 400, 401, 403 and 429 as the spec lists', async () => {
    const disabled = await api('GET', '/callbacks/storage/info');
    expect(disabled.status).toBe(403);
    expect(disabled.body.error).toBe('callback_service_disabled');
    expect((await api('POST', '/callbacks/storage/retry', { date: '202611210900' })).status).toBe(403);
    await api('PUT', '/callbacks/service', { enabled: true });

    expect((await api('GET', '/callbacks/storage/info', undefined, '')).status).toBe(401);
    expect((await api('GET', '/callbacks/storage/info', undefined, 'not-a-token')).status).toBe(401);
    const user = await api('GET', '/callbacks/storage/info', undefined, await userToken(t.app, im, 'alice'));
    expect(user.status).toBe(403);
    expect((await api('POST', '/callback/storage/retry', { date: '202611210900' }, await userToken(t.app, im, 'bob'))).status).toBe(403);

    for (const date of ['202611210905', '2026112109', 'yesterday', '202613010000']) {
      const res = await api('POST', '/callbacks/storage/retry', { date });
      expect(res.status, date).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain('date');
    }
    expect((await api('POST', '/callbacks/storage/retry', {})).status).toBe(400);
    expect((await api('POST', '/callbacks/storage/retry', { date: '202611210900', retry: -1 })).status).toBe(400);
    expect((await api('GET', '/callbacks/storage/20261121')).status).toBe(400);

    // 250 at once: even split across two 1 s windows, one window sees more than 100.
    const burst = await Promise.all(Array.from({ length: 250 }, () => api('GET', '/callbacks/storage/info')));
    const limited = burst.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.body.error).toBe('reach_limit');
    expect(limited[0]?.headers['retry-after']).toBeDefined();
  });

  it('answers 500 internal_error, without a stack trace, when the store is broken', async () => {
    await api('PUT', '/callbacks/service', { enabled: true });
    // A database that lost a table: an internal failure, not bad input and not unavailability.
    await sql`DROP TABLE callback_store_keys`.execute(t.app.parley.storage.db);
    const res = await api('GET', '/callbacks/storage/info');
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/callback_store_keys|at .*\.js/);
  });
});
