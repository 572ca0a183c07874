/**
 * The cache of which IM users exist, on both engines, against a read that overlaps another: a name
 * the cache vouched for when a send looked is never reported missing because another call stamped
 * it with a later time while the first call's read was in flight (a send to a real user answered
 * 404 under load before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImUsersService } from '../../src/modules/im/users.js';
import type { ImUsersRepository } from '../../src/modules/im/ports.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers } from '../helpers/im.js';

describe.each(ENGINES)('IM user existence cache on %s', (engine) => {
  let t: TestApp;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a name another call re-stamps during a read is not reported missing', async () => {
    const im = await createImApp(t.app);
    await createUsers(t.app, im, 'bob', 'carol');
    const app = await t.app.parley.im.apps.requireApp(im.org, im.name);
    // The real repository; the first read is held until the second call has stamped its names.
    const real = (t.app.parley.im.users as unknown as { repo: ImUsersRepository }).repo;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const repo = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'existingUsers') return Reflect.get(target, prop, receiver);
        return async (appId: string, names: string[]) => {
          // Counted when called: on PostgreSQL the later call's query may finish first.
          const read = ++reads;
          const rows = await target.existingUsers(appId, names);
          if (read === 2) await held;
          return rows;
        };
      },
    });
    const users = new ImUsersService(repo, clock, t.app.parley.passwords);

    expect(await users.missing(app, ['bob'])).toEqual([]); // bob is cached from now on
    clock.advance(9_999); // bob still fresh
    const first = users.missing(app, ['bob', 'carol', 'nobody']); // reads carol and nobody: held
    clock.advance(2); // bob stale for the next call, which stamps him with a later time
    expect(await users.missing(app, ['bob'])).toEqual([]);
    release();
    expect(await first).toEqual(['nobody']);
  });
});
