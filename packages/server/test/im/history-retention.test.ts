/**
 * History retention: messages issued more than PARLEY_IM_HISTORY_DAYS ago are deleted by the
 * periodic sweep, with their offline rows, on both engines (the injected clock moves the days).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryRetention } from '../../src/modules/im/history-retention.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';
import { testUnitOfWork } from '../helpers/unit-of-work.js';
import type { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import type { UnitOfWork } from '../../src/kernel/unit-of-work.js';
import type { ImApp, ImTransaction } from '../../src/modules/im/ports.js';

const DAY = 24 * 3_600_000;

describe.each(ENGINES)('IM history retention on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let im: ImAppHandle;
  let other: ImAppHandle;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '100000', PARLEY_IM_HISTORY_DAYS: '180' } });
    clock = t.clock as FakeClock;
    im = await createImApp(t.app, 'acme', 'keep');
    other = await createImApp(t.app, 'acme', 'other');
    await createUsers(t.app, im, 'ann', 'ben');
    await createUsers(t.app, other, 'ann', 'ben');
  });
  afterAll(async () => t?.close());

  const db = () => t.app.parley.storage.db;
  /** A fresh app token: the days the clock moves outlive any token. */
  async function appToken(app: ImAppHandle): Promise<string> {
    const res = await call(t.app, undefined, 'POST', `${app.base}/token`, { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    return res.body.access_token as string;
  }
  async function send(app: ImAppHandle, msg: string): Promise<string> {
    const res = await call(t.app, await appToken(app), 'POST', `${app.base}/messages/users`, { from: 'ann', to: ['ben'], type: 'txt', body: { msg } });
    expect(res.status).toBe(200);
    await t.app.parley.jobs.idle();
    return String(res.body.data.ben);
  }
  const appIdOf = async (app: ImAppHandle) => (await db().selectFrom('im_apps').select('id').where('org_name', '=', app.org).where('app_name', '=', app.name).executeTakeFirstOrThrow()).id;
  const stored = async (app: ImAppHandle) => (await db().selectFrom('im_messages').select('msg_id').where('app_id', '=', await appIdOf(app)).orderBy('msg_id').execute()).map((r) => String(r.msg_id));
  const offline = async (app: ImAppHandle) => (await db().selectFrom('im_offline').select('msg_id').where('app_id', '=', await appIdOf(app)).orderBy('msg_id').execute()).map((r) => String(r.msg_id));

  it('deletes each app’s messages older than the period with their offline rows, and keeps the rest', async () => {
    const old = [await send(im, 'old'), await send(other, 'old elsewhere')];
    clock.advance(100 * DAY);
    const recent = [await send(im, 'recent'), await send(other, 'recent elsewhere')];
    expect(await offline(im)).toEqual([old[0], recent[0]]);
    // 179 days after the old ones: nothing is due yet.
    clock.advance(79 * DAY);
    expect(await t.app.parley.im.retention.sweep()).toBe(0);
    clock.advance(2 * DAY);
    expect(await t.app.parley.im.retention.sweep()).toBe(2);
    expect(await stored(im)).toEqual([recent[0]]);
    expect(await stored(other)).toEqual([recent[1]]);
    expect(await offline(im)).toEqual([recent[0]]);
    expect(await t.app.parley.im.retention.sweep()).toBe(0);
  });

  it('deletes a backlog larger than one batch, a batch per transaction', async () => {
    const app = await createImApp(t.app, 'acme', `backlog-${engine}`);
    await createUsers(t.app, app, 'ann', 'ben');
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await send(app, `m${i}`));
    clock.advance(200 * DAY);
    const kept = await send(app, 'kept');
    const { uow } = testUnitOfWork(t.app.parley.storage, t.app.parley.jobs as unknown as SqlJobQueue);
    const appId = await appIdOf(app);
    // Each transaction's count, as the sweep ran them.
    const batches: number[] = [];
    const counting: UnitOfWork<ImTransaction> = {
      groupCommit: (write, options) => uow.groupCommit(write, options),
      run: (work) =>
        uow.run(async (tx) => {
          const result = await work(tx);
          batches.push(Number(result));
          return result;
        }),
    };
    const apps = { listApps: async () => [{ id: appId }] as ImApp[] };
    const retention = new HistoryRetention(apps, counting, clock, 180 * DAY, 2);
    expect(await retention.sweep()).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    expect(await stored(app)).toEqual([kept]);
  });
});
