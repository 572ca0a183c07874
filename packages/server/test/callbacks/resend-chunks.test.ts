/**
 * A re-send of a key with many stored records runs as a chain of jobs of at most 4 × parallelism
 * records each, so no job outlives its lease (which would let another instance re-claim it and
 * send the records twice); the chain still re-sends every record once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackRecord } from '@parley/protocol';
import { RESEND_QUEUE, type ResendPayload } from '../../src/modules/callbacks/delivery.js';
import { recordsOf } from '../../src/modules/callbacks/record.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

describe('chunked re-send', () => {
  let t: TestApp;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    // Workers off: the test runs the re-send handler itself, one job at a time.
    t = await createTestApp('sqlite', { env: { PARLEY_WORKERS: 'false' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob');
    receiver = await CallbackReceiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('re-sends 70 records as jobs of 32, each record once', async () => {
    const api = (method: 'POST' | 'PUT', path: string, body: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, body);
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    expect((await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url, event_types: ['chat'] })).status).toBe(200);
    const { callbacks, im: imModule } = t.app.parley;
    const rule = await callbacks.service.rule((await imModule.apps.requireApp(im.org, im.name)).id, 'main');
    const now = t.clock.now();
    let n = 0;
    const stored = Array.from({ length: 70 }, (_, i) => ({
      appId: rule.appId,
      dateKey: '202611210900',
      ruleId: rule.id,
      ruleName: rule.name,
      lastError: 'HTTP 500',
      record: recordsOf(
        {
          appId: rule.appId,
          appkey: `${im.org}#${im.name}`,
          msgId: String(1000 + i),
          from: 'alice',
          to: 'bob',
          chatType: 'chat',
          timestamp: now,
          payload: { bodies: [{ type: 'txt', msg: `m${i}` }], ext: {} },
          source: 'rest',
          offlineReceivers: [],
        },
        () => `id-${n++}`,
      )[0]!,
    }));
    await callbacks.repo.storeRecords(stored, now);

    const sizes: number[] = [];
    let payload: ResendPayload | undefined = { appId: rule.appId, dateKey: '202611210900' };
    for (let jobId = 1; payload; jobId++) {
      const before = receiver.requests.length;
      await callbacks.delivery.resend({ id: jobId, queue: RESEND_QUEUE, payload, attempts: 0, orderingKey: null, runAt: now, createdAt: now });
      sizes.push(receiver.requests.length - before);
      // The continuation, if any, is the next job in the queue.
      const next = await t.app.parley.storage.db.selectFrom('jobs').select(['id', 'payload']).where('queue', '=', RESEND_QUEUE).orderBy('id').executeTakeFirst();
      payload = next ? (JSON.parse(next.payload) as ResendPayload) : undefined;
      if (next) await t.app.parley.storage.db.deleteFrom('jobs').where('id', '=', next.id).execute();
    }
    expect(sizes).toEqual([32, 32, 6]);
    const ids = receiver.bodies<CallbackRecord>().map((b) => b.callId);
    expect(new Set(ids).size).toBe(70);
    expect(ids).toHaveLength(70);
  });
});
