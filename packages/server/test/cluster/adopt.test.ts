/**
 * Jobs taken over from a dead instance may be on a callback rule's queue that this instance never
 * worked (its workers start on demand): the take-over starts them. Other queues are left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('workers for taken-over queues on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('starts the worker of a rule queue it is told of, once, and nothing for other queues', () => {
    const { delivery } = t.app.parley.callbacks;
    const { jobs } = t.app.parley;
    delivery.adoptQueue('callbacks.rule.4242');
    delivery.adoptQueue('callbacks.rule.4242');
    expect(() => jobs.work('callbacks.rule.4242', async () => ({ status: 'done' }), { concurrency: 1 })).toThrow(/already has a worker/);
    delivery.adoptQueue('callbacks.rule.x');
    delivery.adoptQueue('other.queue');
    expect(() => jobs.work('other.queue', async () => ({ status: 'done' }), { concurrency: 1 })).not.toThrow();
    expect(() => jobs.work('callbacks.rule.x', async () => ({ status: 'done' }), { concurrency: 1 })).not.toThrow();
  });
});
