/**
 * The durable delivery log (beyond the spec), on both engines with the real delivery engine and
 * a real receiver: every attempt with its rule, msg_id, users, status, HTTP status, duration and
 * error; searched by msg_id, user, rule, status and time a page at a time; seen by another
 * instance on the same database; deleted with the exception store's retention.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

const HOUR = 3_600_000;

describe.each(ENGINES)('callback delivery log on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const send = async (from: string, to: string, msg: string) => {
    const res = await api('POST', '/messages/users', { from, to: [to], type: 'txt', body: { msg } });
    expect(res.status).toBe(200);
    await t.app.parley.jobs.idle();
    return res.body.data[to] as string;
  };
  const search = async (query: string) => (await api('GET', `/callbacks/deliveries${query}`)).body;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2030, 0, 1, 10, 0, 0));
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    expect((await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url, event_types: ['chat'] })).status).toBe(200);
    expect((await api('POST', '/callbacks/rules', { name: 'audit', url: `${receiver.url}/audit`, event_types: ['chat'] })).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('logs every attempt and finds them by msg_id, user, rule, status and time, a page at a time', async () => {
    receiver.respond = (req) => (req.path.endsWith('/audit') ? { status: 503 } : { status: 200, body: 'ok' });
    const first = await send('alice', 'bob', 'one');
    clock.advance(HOUR);
    const second = await send('carol', 'alice', 'two');

    const byMsg = await search(`?msg_id=${first}`);
    expect(byMsg).toMatchObject({ path: '/callbacks/deliveries', organization: im.org, applicationName: im.name });
    expect(byMsg.entities).toHaveLength(3);
    const ok = byMsg.entities.find((e: { rule: string }) => e.rule === 'main');
    expect(ok).toMatchObject({ msg_id: first, eventType: 'chat', from: 'alice', to: 'bob', status: 'success', http_status: 200, error: null, resend: false, at: clock.now() - HOUR });
    expect(ok.callId).toMatch(/^acme#shop_/);
    expect(ok.duration_ms).toBeGreaterThanOrEqual(0);
    const failed = byMsg.entities.filter((e: { rule: string }) => e.rule === 'audit');
    expect(failed.map((e: { status: string; http_status: number; error: string }) => [e.status, e.http_status, e.error])).toEqual([
      ['failure', 503, 'HTTP 503'],
      ['failure', 503, 'HTTP 503'],
    ]);

    expect((await search('?user=alice')).entities).toHaveLength(6);
    expect((await search('?user=carol&rule=main')).entities.map((e: { msg_id: string }) => e.msg_id)).toEqual([second]);
    expect((await search('?status=failure')).entities).toHaveLength(4);
    expect((await search(`?since=${clock.now() - HOUR / 2}`)).entities.every((e: { msg_id: string }) => e.msg_id === second)).toBe(true);
    expect((await search(`?until=${clock.now() - HOUR / 2}`)).entities.every((e: { msg_id: string }) => e.msg_id === first)).toBe(true);

    // Newest first, a page at a time.
    const page1 = await search('?limit=4');
    expect(page1.entities).toHaveLength(4);
    expect(page1.entities[0].msg_id).toBe(second);
    const page2 = await search(`?limit=4&cursor=${page1.cursor}`);
    expect(page2.entities).toHaveLength(2);
    expect(page2.cursor).toBeUndefined();

    const bad = await api('GET', '/callbacks/deliveries?status=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('illegal_argument');
  });

  it('is shared by the instances of one database and kept for the exception store retention', async () => {
    const msgId = await send('alice', 'bob', 'hello');
    // Another instance sees a batch once it is written (within FLUSH_MS on its own).
    await t.app.parley.callbacks.recent.flush();
    const other = await createTestApp(engine, { clock, db: t.db, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000' } });
    try {
      const res = await call(other.app, im.adminToken, 'GET', `${im.base}/callbacks/deliveries?msg_id=${msgId}`);
      expect(res.status).toBe(200);
      expect(res.body.entities.map((e: { rule: string }) => e.rule).sort()).toEqual(['audit', 'main']);
      const recent = await call(other.app, im.adminToken, 'GET', `${im.base}/callbacks/deliveries/recent`);
      expect(recent.body.data.attempts).toHaveLength(2);
    } finally {
      await other.close();
    }
    clock.advance(71 * HOUR);
    await t.app.parley.callbacks.tick();
    expect((await search('')).entities).toHaveLength(2);
    clock.advance(2 * HOUR);
    await t.app.parley.callbacks.tick();
    expect((await search('')).entities).toEqual([]);
  });
});
