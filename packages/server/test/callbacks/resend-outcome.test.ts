/**
 * A stored callback says how its last re-send ended (`last_resend`, docs/im.md): a success keeps
 * the original `last_error` beside `{result: 'success'}`, a failure replaces it; a record never
 * re-sent answers null; the key list names its date keys' zone. Real receiver, real job queue, injected clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';
import { storeRecords } from '../helpers/stored-records.js';

const KEY = '202611241300';

describe.each(ENGINES)('re-send outcome of stored callbacks on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, body);

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock, env: { PARLEY_CALLBACK_TIMEOUT_MS: '1000' } });
    im = await createImApp(t.app);
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    expect((await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url })).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('answers null before a re-send, then success (old error kept) or failure (new error) per record', async () => {
    const { callbacks, jobs } = t.app.parley;
    const rule = await callbacks.service.rule((await t.app.parley.im.apps.requireApp(im.org, im.name)).id, 'main');
    const [good, bad] = await storeRecords(callbacks.repo, { appId: rule.appId, appkey: `${im.org}#${im.name}`, ruleId: rule.id, ruleName: 'main', dateKey: KEY }, 2, clock.now());

    // The key list names the zone its keys are read in, for the console's readable times.
    const info = await api('GET', '/callbacks/storage/info');
    expect(info.body).toMatchObject({ data: [{ date: KEY, size: 2, retry: 0 }], date_key_zone: 'UTC' });

    const before = await api('GET', `/callbacks/storage/${KEY}`);
    expect(before.status).toBe(200);
    expect(before.body.entities.map((r: { last_error: string; last_resend: unknown }) => [r.last_error, r.last_resend])).toEqual([
      ['HTTP 500', null],
      ['HTTP 500', null],
    ]);

    // The receiver accepts the first record and keeps failing the second.
    receiver.respond = (req) => ((JSON.parse(req.body) as CallbackRecord).callId === bad ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    clock.advance(60_000);
    const resentAt = clock.now();
    expect((await api('POST', '/callbacks/storage/retry', { date: KEY })).body.data).toBe('success');
    jobs.notifyAll();
    await jobs.idle();

    const after = await api('GET', `/callbacks/storage/${KEY}`);
    const byId = new Map((after.body.entities as Array<{ callId: string; last_error: string; last_resend: unknown }>).map((r) => [r.callId, r]));
    expect(byId.get(good as string)).toMatchObject({ last_error: 'HTTP 500', last_resend: { result: 'success', at: resentAt } });
    expect(byId.get(bad as string)).toMatchObject({ last_error: expect.stringMatching(/^re-send failed: .*503/), last_resend: { result: 'failure', at: resentAt } });

    // A later successful re-send of the failed record turns it to success.
    receiver.respond = () => ({ status: 200, body: 'ok' });
    clock.advance(60_000);
    expect((await api('POST', '/callbacks/storage/retry', { date: KEY })).body.data).toBe('success');
    jobs.notifyAll();
    await jobs.idle();
    const last = await api('GET', `/callbacks/storage/${KEY}`);
    expect(last.body.entities.map((r: { last_resend: unknown }) => r.last_resend)).toEqual([
      { result: 'success', at: clock.now() },
      { result: 'success', at: clock.now() },
    ]);
  });
});
