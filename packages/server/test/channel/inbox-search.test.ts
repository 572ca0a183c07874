/**
 * The conversation list's searches through their indexes (migrations 126 and 127, docs/channel.md
 * "Listing and history"): message text (`q`, a case-insensitive substring) in old closed
 * conversations and in new messages, before the background indexer ran and after, needles the
 * index cannot take (short ones, LIKE and FTS syntax), deletions removing indexed text, and `label`
 * (a conversation label or a customer tag) merged in the list's order and paged. The periodic
 * indexer is off here (PARLEY_SEARCH_INDEX_INTERVAL_MS=0): the tests run it.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sendCustomerMessage, type SalesWorld } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { searchSuite } from '../helpers/search-suite.js';

describe.each(ENGINES)('conversation list search on %s', (engine) => {
  const s = searchSuite(engine, 'Search');
  const { world, api, watermark, lastMessageId } = s;
  type World = SalesWorld;
  const ids = (res: { body: { entities: Array<{ id: number }> } }) => res.body.entities.map((c) => c.id);
  const open = async (w: World, from: string, text: string, tags?: string[]) =>
    (await sendCustomerMessage(s.t.app, w.assoc, { from, text, ext: { queue_name: 'sales', ...(tags ? { visitor: { tags } } : {}) } })).conversation_id;
  async function search(w: World, query: string): Promise<number[]> {
    const res = await api(w, w.adminToken, 'GET', `?${query}`);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    return ids(res);
  }
  const q = (w: World, needle: string) => search(w, `q=${encodeURIComponent(needle)}`);
  const runIndexer = () => s.t.app.parley.channel.indexer.run();
  /** Runs `check` before the indexer ran over the messages stored so far, and again after. */
  async function beforeAndAfterIndexing(check: () => Promise<void>): Promise<void> {
    expect(await watermark()).toBeLessThan(await lastMessageId());
    await check();
    expect(await runIndexer()).toBeGreaterThan(0);
    expect(await watermark()).toBe(await lastMessageId());
    await check();
  }
  const messageId = async (msgId: string) => Number((await sql<{ id: number }>`SELECT id FROM channel_messages WHERE msg_id = ${msgId}`.execute(s.t.app.parley.storage.db)).rows[0]?.id);
  /** The message ids the engine's text index holds for `needle` (read from the index itself). */
  async function indexed(needle: string): Promise<number[]> {
    const db = s.t.app.parley.storage.db;
    const rows =
      engine === 'sqlite'
        ? (await sql<{ id: number }>`SELECT rowid AS id FROM channel_message_fts WHERE channel_message_fts MATCH ${`"${needle}"`}`.execute(db)).rows
        : (await sql<{ id: number }>`SELECT message_id AS id FROM channel_message_text WHERE text LIKE ${`%${needle}%`}`.execute(db)).rows;
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }
  /** Accepts, replies `reply` and closes: the conversation ends in the history. */
  const firstMsgId = async (conversationId: number) =>
    (await sql<{ msg_id: string }>`SELECT msg_id FROM channel_messages WHERE conversation_id = ${conversationId} ORDER BY id LIMIT 1`.execute(s.t.app.parley.storage.db)).rows[0]?.msg_id;
  async function closeWith(w: World, id: number, reply: string): Promise<void> {
    expect((await api(w, w.agent.token, 'POST', `/${id}/accept`)).status).toBe(200);
    expect((await api(w, w.agent.token, 'POST', `/${id}/messages`, { bodies: [{ type: 'txt', msg: reply }] })).status).toBe(200);
    expect((await api(w, w.agent.token, 'POST', `/${id}/close`)).status).toBe(200);
  }

  it('finds a text of an old closed conversation, the customer\'s or the agent\'s, among newer ones, case-insensitively', async () => {
    const w = await world();
    const kettle = await open(w, 'c-kettle', 'My Kettle whistles all night');
    await closeWith(w, kettle, 'Please DESCALE it once a month');
    s.clock.advance(3_600_000);
    const others: number[] = [];
    for (let i = 0; i < 5; i++) {
      others.push(await open(w, `c-other-${i}`, `Question ${i} about my order`));
      s.clock.advance(60_000);
    }

    await beforeAndAfterIndexing(async () => {
      expect(await q(w, 'kettle')).toEqual([kettle]);
      expect(await q(w, 'KETTLE WHI')).toEqual([kettle]);
      expect(await q(w, 'descale')).toEqual([kettle]);
      expect(await search(w, 'q=kettle&state=closed')).toEqual([kettle]);
      expect(await search(w, 'q=kettle&state=waiting')).toEqual([]);
      expect(await q(w, 'about my order')).toEqual([...others].reverse());
      expect(await q(w, 'zebra-unicorn')).toEqual([]);
      // The text of messages, not their JSON.
      expect(await q(w, '"msg"')).toEqual([]);
      expect(await q(w, 'txt')).toEqual([]);
    });
    expect(await indexed('kettle')).toEqual([await messageId((await firstMsgId(kettle)) ?? '')]);
  });

  it('takes needles the index cannot: shorter than 3 characters, with LIKE or FTS syntax, with a line feed, in other scripts', async () => {
    const w = await world();
    const percent = await open(w, 'c-percent', '100% sure: "free_shipping" OR NOT?');
    s.clock.advance(60_000);
    const plain = await open(w, 'c-plain', 'ok then 1005 sure free shipping');
    s.clock.advance(60_000);
    const greek = await open(w, 'c-greek', 'ΟΔΟΣ Σοφίας 5');

    await beforeAndAfterIndexing(async () => {
      expect(await q(w, 'ok')).toEqual([plain]);
      expect(await q(w, '%')).toEqual([percent]);
      expect(await q(w, '0% s')).toEqual([percent]);
      expect(await q(w, '_sh')).toEqual([percent]);
      expect(await q(w, 'free_shipping')).toEqual([percent]);
      expect(await q(w, '"free')).toEqual([percent]);
      expect(await q(w, 'or not?')).toEqual([percent]);
      expect(await q(w, 'free shipping')).toEqual([plain]);
      expect(await q(w, 'sure\nfree')).toEqual([]);
      expect(await q(w, 'σοφίας')).toEqual([greek]);
    });
  });

  it('finds a message the moment it is stored, past the watermark, and a deletion (cascades too) removes its indexed text', async () => {
    const w = await world();
    const id = await open(w, 'c-steps', 'hello there');
    await runIndexer();
    expect(await q(w, 'refund')).toEqual([]);

    await sendCustomerMessage(s.t.app, w.assoc, { from: 'c-steps', text: 'I want a REFUND now', msg_id: 'steps-2' });
    const refund = await messageId('steps-2');
    expect(await watermark()).toBeLessThan(refund);
    expect(await indexed('refund')).not.toContain(refund);
    expect(await q(w, 'refund')).toEqual([id]);
    await runIndexer();
    expect(await indexed('refund')).toContain(refund);
    expect(await q(w, 'refund')).toEqual([id]);

    const db = s.t.app.parley.storage.db;
    await sql`DELETE FROM channel_messages WHERE id = ${refund}`.execute(db);
    expect(await indexed('refund')).not.toContain(refund);
    expect(await q(w, 'refund')).toEqual([]);
    expect(await q(w, 'hello there')).toEqual([id]);

    // A conversation's deletion (as a tenant's or an association's does) cascades to its messages' text.
    const hello = await messageId((await firstMsgId(id)) ?? '');
    expect(await indexed('hello there')).toContain(hello);
    await sql`DELETE FROM conversations WHERE id = ${id}`.execute(db);
    expect(await indexed('hello there')).not.toContain(hello);
    expect(await q(w, 'hello there')).toEqual([]);
  });

  it('filters by label, a conversation label or a customer tag, in the list\'s order, paged with the cursor', async () => {
    const w = await world();
    const labelled: number[] = [];
    const tagged: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await open(w, `c-label-${i}`, 'where is it');
      expect((await api(w, w.adminToken, 'PUT', `/${a}/labels`, { labels: ['late', 'refund'] })).status).toBe(200);
      labelled.push(a);
      s.clock.advance(60_000);
      tagged.push(await open(w, `c-tag-${i}`, 'where is it', ['late']));
      s.clock.advance(60_000);
      await open(w, `c-none-${i}`, 'where is it', ['early']);
      s.clock.advance(60_000);
    }
    // A conversation both labelled and tagged is listed once.
    expect((await api(w, w.adminToken, 'PUT', `/${tagged[1]}/labels`, { labels: ['late'] })).status).toBe(200);
    const latestFirst = [tagged[2], labelled[2], tagged[1], labelled[1], tagged[0], labelled[0]];
    // Labelling is no message: the order by latest activity stays that of the messages.
    expect(await search(w, 'label=late')).toEqual(latestFirst);
    expect(await search(w, 'label=late&sort=newest')).toEqual(latestFirst);
    expect(await search(w, 'label=late&sort=longest_waiting&state=waiting')).toEqual([...latestFirst].reverse());
    expect(await search(w, 'label=refund')).toEqual([...labelled].reverse());
    expect(await search(w, 'label=early')).toHaveLength(3);
    expect(await search(w, 'label=lat')).toEqual([]);

    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await api(w, w.adminToken, 'GET', `?label=late&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      pages.push(...ids(page));
      cursor = page.body.cursor as string | null;
    } while (cursor);
    expect(pages).toEqual(latestFirst);
    const counts = await api(w, w.adminToken, 'GET', '/counts?label=late');
    expect(counts.body.entity).toMatchObject({ waiting: 6 });
  });
});
