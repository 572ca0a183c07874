/**
 * The conversation search's background indexer (modules/channel/message-indexer.ts) and the
 * latest-activity order it serves (docs/channel.md, "Listing and history"): a run is idempotent and
 * a new indexer resumes from the stored watermark; the watermark waits at a gap in the ids until
 * the message after it is old; `sort=latest` over every state and over the closed ones (walked
 * through the closed conversations' index) is the exact order of `updated_at`, with closes in any
 * order and a message written to a closed conversation, before the indexer ran and after.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MessageIndexer, reachable } from '../../src/modules/channel/message-indexer.js';
import { kyselyMessageSearchIndex } from '../../src/storage/repositories/channel-message-search.js';
import { sendCustomerMessage, type SalesWorld } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { searchSuite } from '../helpers/search-suite.js';

describe('the indexer watermark over gaps in the ids', () => {
  const m = (id: number, createdAt: number) => ({ id, createdAt });
  it('passes contiguous ids, stops before a gap whose next message is recent, passes a gap whose next message is old', () => {
    expect(reachable(10, [m(11, 100), m(12, 100), m(13, 100)], 50)).toBe(13);
    expect(reachable(10, [m(11, 100), m(13, 100), m(14, 100)], 50)).toBe(11);
    expect(reachable(10, [m(11, 40), m(13, 40), m(15, 100)], 50)).toBe(13);
    expect(reachable(10, [m(12, 100)], 50)).toBe(10);
    expect(reachable(10, [], 50)).toBe(10);
  });
});

describe.each(ENGINES)('the conversation search indexer on %s', (engine) => {
  const s = searchSuite(engine, 'Indexer');
  const { world, api, watermark, lastMessageId } = s;
  type World = SalesWorld;
  const db = () => s.t.app.parley.storage.db;
  const open = async (w: World, from: string, text: string) => (await sendCustomerMessage(s.t.app, w.assoc, { from, text, ext: { queue_name: 'sales' } })).conversation_id;
  async function close(w: World, id: number): Promise<void> {
    expect((await api(w, w.agent.token, 'POST', `/${id}/accept`)).status).toBe(200);
    s.clock.advance(1_000);
    expect((await api(w, w.agent.token, 'POST', `/${id}/close`)).status).toBe(200);
  }
  /** Every page of the list, `limit` a page, followed by its cursor. */
  async function listAll(w: World, query: string, limit: number): Promise<number[]> {
    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await api(w, w.adminToken, 'GET', `?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      ids.push(...(page.body.entities as Array<{ id: number }>).map((c) => c.id));
      cursor = page.body.cursor as string | null;
    } while (cursor);
    return ids;
  }
  /** The latest-activity order read straight from `updated_at`. */
  async function byUpdatedAt(w: World, state?: string, range?: [number, number]): Promise<number[]> {
    const rows = await sql<{ id: number }>`SELECT id FROM conversations WHERE tenant_id = ${w.tenantId} ${state ? sql`AND state = ${state}` : sql``}
      ${range ? sql`AND updated_at BETWEEN ${range[0]} AND ${range[1]}` : sql``} ORDER BY updated_at DESC, id DESC`.execute(db());
    return rows.rows.map((r) => Number(r.id));
  }

  it('indexes once: a second run passes nothing, a stale step is refused, a new indexer resumes from the stored watermark', async () => {
    const w = await world();
    await open(w, 'c-once', 'first words');
    await s.t.app.parley.channel.indexer.run();
    const mark = await watermark();
    expect(mark).toBe(await lastMessageId());
    expect(await s.t.app.parley.channel.indexer.run()).toBe(0);

    const store = kyselyMessageSearchIndex(db(), engine);
    expect(await store.advance(mark - 1, mark)).toBe(false);
    expect(await watermark()).toBe(mark);

    await sendCustomerMessage(s.t.app, w.assoc, { from: 'c-once', text: 'second words', msg_id: 'once-2' });
    await sendCustomerMessage(s.t.app, w.assoc, { from: 'c-once', text: 'third words', msg_id: 'once-3' });
    const fresh = new MessageIndexer(store, s.clock, { batch: 1, maxSteps: 2 });
    expect(await fresh.run()).toBe(2);
    expect(await watermark()).toBe(await lastMessageId());
    const indexedWords = await s.t.app.parley.channel.indexer.run();
    expect(indexedWords).toBe(0);
    const found = await api(w, w.adminToken, 'GET', `?q=${encodeURIComponent('words')}`);
    expect(found.body.entities).toHaveLength(1);
  });

  it('orders by latest activity exactly, over every state and the closed ones, closes in any order and a message after a close', async () => {
    const w = await world();
    const convs: number[] = [];
    for (let i = 0; i < 6; i++) {
      convs.push(await open(w, `c-latest-${i}`, `question ${i}`));
      s.clock.advance(60_000);
    }
    // Closed in an order unlike their opening: 4, 1, 0, 3; 2 and 5 stay open, 5 gets a new message.
    for (const i of [4, 1, 0, 3]) {
      await close(w, convs[i]!);
      s.clock.advance(60_000);
    }
    await sendCustomerMessage(s.t.app, w.assoc, { from: 'c-latest-5', text: 'still there?', msg_id: 'latest-5b' });
    s.clock.advance(60_000);
    // A message written to a closed conversation after its close moves its latest activity, as
    // an agent reply does (storeAgentReply: the message and `updated_at`).
    const now = s.clock.now();
    await sql`INSERT INTO channel_messages (conversation_id, channel_id, direction, msg_id, agent_id, bodies, ext, timestamp, created_at)
      SELECT id, channel_id, 'agent', 'late-1', NULL, ${JSON.stringify([{ type: 'txt', msg: 'one more thing' }])}, '{}', ${now}, ${now} FROM conversations WHERE id = ${convs[1]!}`.execute(db());
    await sql`UPDATE conversations SET updated_at = ${now} WHERE id = ${convs[1]!}`.execute(db());

    const expected = await byUpdatedAt(w);
    expect(expected[0]).toBe(convs[1]);
    const expectedClosed = await byUpdatedAt(w, 'closed');
    const times = (await sql<{ t: number }>`SELECT updated_at AS t FROM conversations WHERE tenant_id = ${w.tenantId} AND state = 'closed' ORDER BY updated_at`.execute(db())).rows.map((r) => Number(r.t));
    const range: [number, number] = [times[1]!, times[2]!];
    const expectedInRange = await byUpdatedAt(w, undefined, range);
    expect(expectedInRange.length).toBeGreaterThan(1);
    for (const indexed of [false, true]) {
      if (indexed) await s.t.app.parley.channel.indexer.run();
      expect(await watermark() === (await lastMessageId())).toBe(indexed);
      expect(await listAll(w, 'sort=latest', 100)).toEqual(expected);
      expect(await listAll(w, 'sort=latest', 2)).toEqual(expected);
      expect(await listAll(w, 'state=closed&sort=latest', 100)).toEqual(expectedClosed);
      expect(await listAll(w, 'state=closed&sort=latest', 1)).toEqual(expectedClosed);
      expect(await listAll(w, 'state=closed&sort=newest', 3)).toEqual([...expectedClosed].sort((a, b) => b - a));
      expect(await listAll(w, `sort=latest&from=${range[0]}&to=${range[1]}`, 1)).toEqual(expectedInRange);
    }
    const late = await sql<{ id: number }>`SELECT conversation_id AS id FROM conversation_late_activity WHERE tenant_id = ${w.tenantId}`.execute(db());
    expect(late.rows.map((r) => Number(r.id))).toEqual([convs[1]]);
  });
});
