/**
 * Two apps' callback rules on one receiver host and port: the rule whose path hangs holds at most
 * its budget of the origin's connections (PARLEY_OUTBOUND_CONNECTIONS_PER_KEY), so the other
 * app's callbacks are delivered while it hangs. The app's default sender (on its worker thread,
 * from the build), the durable job queue, both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageEvent } from '../../src/modules/im/post-send.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';

const POOL = 4;
const PER_KEY = 2;

describe.each(ENGINES)('callback rules sharing a receiver origin on %s', (engine) => {
  let t: TestApp;
  let receiver: CallbackReceiver;
  let seq = 0;

  beforeEach(async () => {
    const clock = new FakeClock();
    t = await createTestApp(engine, {
      clock,
      env: {
        // Long enough that, without the budget, the healthy rule would wait far beyond the check below.
        PARLEY_CALLBACK_TIMEOUT_MS: '30000',
        PARLEY_CALLBACK_RULE_CONCURRENCY: '4',
        PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: String(POOL),
        PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: String(PER_KEY),
      },
    });
    receiver = await CallbackReceiver.start();
    receiver.respond = (req) => (req.path.endsWith('/hung') ? 'hang' : { status: 200, body: 'ok' });
  });
  afterEach(async () => {
    // Closing the receiver ends the hung requests (connection failures), so the app closes at once.
    await receiver.close();
    await t.close();
  });

  function message(appId: string): MessageEvent {
    seq++;
    return {
      appId,
      appkey: `acme#${appId}`,
      msgId: String(2_000_000 + seq),
      from: 'alice',
      to: 'bob',
      chatType: 'chat',
      timestamp: t.clock.now(),
      payload: { bodies: [{ type: 'txt', msg: `hello ${seq}` }], ext: {} },
      source: 'sdk',
      offlineReceivers: [],
    };
  }

  async function send(events: MessageEvent[]): Promise<void> {
    const cb = t.app.parley.callbacks;
    const jobs = (await cb.hook.jobsFor(events)).flat();
    await t.app.parley.uow.run((tx) => tx.jobs.enqueue(jobs));
    cb.hook.committed(jobs);
  }

  it("delivers one app's callbacks while another app's rule on the same host and port hangs", async () => {
    const cb = t.app.parley.callbacks;
    await t.app.parley.outbound.warmUp?.();
    for (const [appId, path] of [
      ['app-hung', 'hung'],
      ['app-well', 'well'],
    ] as const) {
      await cb.service.updateSettings(appId, { enabled: true, store_failed: false });
      await cb.service.createRule(appId, { name: 'main', url: `${receiver.url}/${path}` });
    }
    const hungRequests = () => receiver.requests.filter((r) => r.path.endsWith('/hung')).length;

    // Four workers of the hung rule take callbacks; only its budget of them reaches the receiver.
    await send(Array.from({ length: 10 }, () => message('app-hung')));
    await waitFor(hungRequests, (n) => n >= PER_KEY);

    await send(Array.from({ length: 5 }, () => message('app-well')));
    // Without the budget the hung rule's four workers hold all four connections for 30 s.
    const healthy = await waitFor(
      () => receiver.requests.filter((r) => r.path.endsWith('/well')).length,
      (n) => n === 5,
      10_000,
    );
    expect(healthy).toBe(5);
    expect(hungRequests()).toBe(PER_KEY);
  }, 30_000);
});
