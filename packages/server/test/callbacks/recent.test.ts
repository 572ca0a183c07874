/**
 * The console's live tail: `GET /{org}/{app}/callbacks/deliveries/recent` lists the last attempts
 * of an app (newest first, with result, latency and error) and counts them per minute by result,
 * from the durable delivery log fed by the real delivery engine. Both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';
import { RECENT_MINUTES } from '../../src/modules/callbacks/delivery-log.js';

const MINUTE = 60_000;

describe.each(ENGINES)('recent callback attempts on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown, token: string | undefined = im.adminToken) => call(t.app, token, method, `${im.base}${path}`, payload);
  const send = async (msg: string) => {
    const res = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg } });
    expect(res.status).toBe(200);
    await t.app.parley.jobs.idle();
  };

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2030, 0, 1, 10, 0, 30));
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob');
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    // Only the `chat` event, so each message is one record.
    expect((await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url, event_types: ['chat'] })).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('lists the last attempts newest first with result, latency and error, and counts them per minute', async () => {
    const empty = await api('GET', '/callbacks/deliveries/recent');
    expect(empty.status).toBe(200);
    expect(empty.body.data.attempts).toEqual([]);
    expect(empty.body.data.minutes).toHaveLength(RECENT_MINUTES);

    await send('ok');
    clock.advance(MINUTE);
    receiver.respond = () => ({ status: 500 });
    await send('fails twice');

    const res = await api('GET', '/callbacks/deliveries/recent');
    expect(res.body).toMatchObject({ path: '/callbacks/deliveries/recent', organization: im.org, applicationName: im.name });
    const { attempts, minutes, now } = res.body.data;
    expect(now).toBe(clock.now());
    expect(attempts.map((a: { result: string }) => a.result)).toEqual(['failure', 'failure', 'success']);
    expect(attempts[0]).toMatchObject({ rule: 'main', error: 'HTTP 500', resend: false, at: clock.now(), callId: expect.stringMatching(/^acme#shop_/) });
    expect(attempts[2]).toMatchObject({ error: null, at: clock.now() - MINUTE });
    for (const a of attempts) expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    const current = Math.floor(clock.now() / MINUTE) * MINUTE;
    expect(minutes.at(-1)).toEqual({ minute: current, success: 0, overlong: 0, failure: 2 });
    expect(minutes.at(-2)).toEqual({ minute: current - MINUTE, success: 1, overlong: 0, failure: 0 });
    expect(minutes[0].minute).toBe(current - (RECENT_MINUTES - 1) * MINUTE);

    // A re-send from the exception store shows as a re-send.
    receiver.respond = () => ({ status: 200 });
    const [key] = (await api('GET', '/callbacks/storage/info')).body.data;
    expect((await api('POST', '/callbacks/storage/retry', { date: key.date })).body.data).toBe('success');
    await t.app.parley.jobs.idle();
    const after = (await api('GET', '/callbacks/deliveries/recent?limit=1')).body.data.attempts;
    expect(after).toEqual([expect.objectContaining({ result: 'success', resend: true })]);

    // Another app sees only its own attempts.
    const other = await createImApp(t.app, 'acme', 'other');
    expect((await call(t.app, other.adminToken, 'GET', `${other.base}/callbacks/deliveries/recent`)).body.data.attempts).toEqual([]);
  });

  it('needs the app token and validates limit', async () => {
    expect((await api('GET', '/callbacks/deliveries/recent', undefined, 'nope')).status).toBe(401);
    const bad = await api('GET', '/callbacks/deliveries/recent?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('illegal_argument');
  });
});
