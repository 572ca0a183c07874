/**
 * `GET /{org}/{app}/callbacks/storage/{date}` pages its records (contract 6.2): `limit` (default
 * 100, at most 1,000) and an opaque `cursor` that continues after the last record, stable while
 * records are stored and deleted between pages, and never a way into another app's records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';
import { storeRecords, type StoreTarget } from '../helpers/stored-records.js';

const KEY = '202611211200';

describe.each(ENGINES)('exception store listing pages on %s', (engine) => {
  let t: TestApp;
  let shop: ImAppHandle;
  let other: ImAppHandle;
  const targets = new Map<ImAppHandle, StoreTarget>();

  const list = (im: ImAppHandle, query: string, date = KEY) => call(t.app, im.adminToken, 'GET', `${im.base}/callbacks/storage/${date}${query}`);
  const ids = (body: { entities: { callId: string }[] }) => body.entities.map((e) => e.callId);
  /** Every page of a key with `limit`, calling `between` after each page. */
  const walk = async (im: ImAppHandle, limit: number, between: (page: number) => Promise<void> = async () => {}) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await list(im, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.entities.length).toBeLessThanOrEqual(limit);
      seen.push(...ids(res.body));
      cursor = res.body.cursor;
      if (cursor === undefined) return seen;
      await between(page);
    }
    throw new Error('the listing never ended');
  };

  beforeEach(async () => {
    t = await createTestApp(engine, { clock: new FakeClock(), env: { PARLEY_WORKERS: 'false' } });
    shop = await createImApp(t.app, 'acme', 'shop');
    other = await createImApp(t.app, 'rival', 'store');
    for (const im of [shop, other]) {
      await call(t.app, im.adminToken, 'PUT', `${im.base}/callbacks/service`, { enabled: true, store_failed: true });
      const appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
      targets.set(im, { appId, appkey: `${im.org}#${im.name}`, ruleId: null, ruleName: 'main', dateKey: KEY });
    }
  });
  afterEach(async () => t.close());

  const store = (im: ImAppHandle, count: number, tag: string, dateKey = KEY) =>
    storeRecords(t.app.parley.callbacks.repo, { ...targets.get(im)!, dateKey }, count, t.clock.now(), tag);

  it('walks every record once, in storage order, with a small limit; the last page has no cursor', async () => {
    const stored = await store(shop, 23, 'a');
    await store(other, 5, 'x');
    await store(shop, 4, 'later', '202611211210');
    expect(await walk(shop, 5)).toEqual(stored);
    // An exact multiple of the limit ends without an empty page.
    expect(await walk(shop, 23)).toEqual(stored);
  });

  it('stays stable while records are stored and deleted between pages', async () => {
    const stored = await store(shop, 20, 'a');
    const db = t.app.parley.storage.db;
    const idOf = async (callId: string) => (await db.selectFrom('callback_stored').select('id').where('call_id', '=', callId).executeTakeFirstOrThrow()).id;
    const added: string[] = [];
    const seen = await walk(shop, 4, async (page) => {
      if (page >= 3) return;
      added.push(...(await store(shop, 2, `new${page}-`)));
      // One record already listed and one not yet listed disappear.
      for (const callId of [stored[page * 4]!, stored[19 - page]!]) await db.deleteFrom('callback_stored').where('id', '=', await idOf(callId)).execute();
    });
    // Nothing listed twice or skipped: the originals not deleted ahead of the walk, then the new ones.
    expect(added).toHaveLength(6);
    expect(seen).toEqual([...stored.slice(0, 17), ...added]);
  });

  it('is bounded without a limit: 100 a page, and the cursor continues', async () => {
    const stored = await store(shop, 130, 'a');
    const first = await list(shop, '');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ path: `/callbacks/storage/${KEY}`, action: 'get' });
    expect(ids(first.body)).toEqual(stored.slice(0, 100));
    expect(first.body.cursor).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
    const second = await list(shop, `?cursor=${first.body.cursor}`);
    expect(ids(second.body)).toEqual(stored.slice(100));
    expect(second.body).not.toHaveProperty('cursor');
    expect(ids((await list(shop, '?limit=1000')).body)).toEqual(stored);
  });

  it('a cursor never reads another app: it is only a position within the caller’s own records', async () => {
    const mine = await store(shop, 6, 'a');
    const theirs = await store(other, 6, 'x');
    const page = await list(shop, '?limit=2');
    expect(ids(page.body)).toEqual(mine.slice(0, 2));
    const replayed = await list(other, `?limit=100&cursor=${page.body.cursor}`);
    expect(replayed.status).toBe(200);
    for (const callId of ids(replayed.body)) expect(theirs).toContain(callId);
    expect(ids(replayed.body).some((c) => mine.includes(c))).toBe(false);
    // The other app's own walk is its own records only.
    expect(await walk(other, 4)).toEqual(theirs);
  });

  it('answers 400 illegal_argument naming limit or cursor, in the IM envelope', async () => {
    await store(shop, 3, 'a');
    const cursorOfOtherKey = (await list(shop, '?limit=1', KEY)).body.cursor as string;
    for (const [query, name] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=-5', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?cursor=not%20base64!', 'cursor'],
      [`?cursor=${Buffer.from('hello').toString('base64url')}`, 'cursor'],
      [`?cursor=${Buffer.from('202611211200.99999999999999999').toString('base64url')}`, 'cursor'],
      [`?cursor=${'A'.repeat(200)}`, 'cursor'],
    ] as const) {
      const res = await list(shop, query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ error: 'illegal_argument', exception: expect.any(String) });
      expect(res.body.error_description, query).toContain(name);
    }
    const wrongKey = await list(shop, `?cursor=${cursorOfOtherKey}`, '202611211210');
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.error_description).toContain('cursor');
  });
});
