/**
 * The conversation list's storage (storage/repositories/im-conversations.ts) on both engines: the
 * user's conversations and marks come back from one statement, a page's last messages and unread
 * counts from another, so a list is two statements whatever its length.
 */
import type { Kysely, KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImConversations } from '../../src/modules/im/conversations.js';
import { firstIdAt } from '../../src/modules/im/msg-id.js';
import type { ImApp } from '../../src/modules/im/ports.js';
import type { Storage } from '../../src/storage/index.js';
import { kyselyImConversations } from '../../src/storage/repositories/im-conversations.js';
import type { Database } from '../../src/storage/schema.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage, ENGINES } from '../helpers/engines.js';

const APP = { id: 'app-1', org_name: 'org', app_name: 'app', client_id: 'cid', client_secret_hash: 'x', created_at: 0 };
const IM_APP: ImApp = { id: APP.id, orgName: APP.org_name, appName: APP.app_name, appkey: 'org#app', clientId: 'cid', clientSecretHash: 'x', createdAt: 0 };
const DAY = 86_400_000;
/** Message n's msg_id: ids hold the time they were issued (msg-id.ts); these were issued 20 days before the clock's now. */
const BASE = Number(firstIdAt(new FakeClock().now() - 20 * DAY));
const id = (n: number): string => String(BASE + n);

/** Counts the statements run through the Kysely instance it is plugged into. */
function statementCounter(): KyselyPlugin & { count: number } {
  const counter = {
    count: 0,
    transformQuery: (args: Parameters<KyselyPlugin['transformQuery']>[0]) => {
      counter.count += 1;
      return args.node;
    },
    transformResult: async (args: Parameters<KyselyPlugin['transformResult']>[0]) => args.result,
  };
  return counter;
}

async function seed(db: Kysely<Database>, now: number): Promise<void> {
  await db.insertInto('im_apps').values(APP).execute();
  const group = (id: string, kind: 'group' | 'chatroom') => ({ id, app_id: APP.id, kind, name: id, description: '', public: 1, maxusers: 200, owner: 'alice', created_at: 0, modified_at: 0 });
  await db.insertInto('im_groups').values([group('g1', 'group'), group('g2', 'group'), group('r1', 'chatroom')]).execute();
  const member = (groupId: string, username: string) => ({ group_id: groupId, app_id: APP.id, username, role: 'member' as const, joined_at: 0 });
  await db.insertInto('im_members').values([member('g1', 'alice'), member('g1', 'bob'), member('g2', 'alice'), member('r1', 'alice')]).execute();
  const message = (n: number, sender: string, receiver: string, chatType: 'chat' | 'groupchat' | 'chatroom', timestamp = now) => ({
    app_id: APP.id,
    msg_id: Number(id(n)),
    sender,
    receiver,
    chat_type: chatType,
    source: 'rest' as const,
    timestamp,
    payload: JSON.stringify({ bodies: [{ type: 'txt', msg: `m${n}` }], ext: {} }),
  });
  await db
    .insertInto('im_messages')
    .values([
      message(1, 'bob', 'alice', 'chat', now - 10 * DAY),
      message(2, 'bob', 'alice', 'chat'),
      message(3, 'alice', 'bob', 'chat'),
      message(4, 'carol', 'alice', 'chat'),
      message(5, 'alice', 'dan', 'chat'),
      message(6, 'bob', 'g1', 'groupchat'),
      message(7, 'alice', 'g1', 'groupchat'),
      message(8, 'bob', 'r1', 'chatroom'),
      message(9, 'bob', 'carol', 'chat'),
    ])
    .execute();
  const mark = (kind: 'chat' | 'group', peer: string, values: { read_msg_id?: number; pinned_at?: number; mark_set?: number }) => ({ app_id: APP.id, username: 'alice', kind, peer, read_msg_id: 0, hidden_msg_id: 0, cleared_msg_id: 0, pinned_at: 0, mark_set: 0, ...values });
  await db
    .insertInto('im_conversation_marks')
    .values([mark('chat', 'bob', { read_msg_id: Number(id(1)) }), mark('chat', 'carol', { pinned_at: 1000 }), mark('chat', 'dan', { mark_set: 4 }), mark('chat', 'zed', { pinned_at: 2000 })])
    .execute();
}

describe.each(ENGINES)('conversation list storage on %s', (engine) => {
  const clock = new FakeClock();
  let storage: Storage;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    await seed(storage.db, clock.now());
  });
  afterAll(async () => cleanup?.());

  it('reads the conversations (peers both ways, groups with messages) and every mark in one statement', async () => {
    const counter = statementCounter();
    const { latest, marks } = await kyselyImConversations(storage.db.withPlugin(counter), engine).overview(APP.id, 'alice');
    expect(counter.count).toBe(1);
    expect([...latest].sort((a, b) => a.peer.localeCompare(b.peer))).toEqual([
      { kind: 'chat', peer: 'bob', lastMsgId: id(3) },
      { kind: 'chat', peer: 'carol', lastMsgId: id(4) },
      { kind: 'chat', peer: 'dan', lastMsgId: id(5) },
      { kind: 'group', peer: 'g1', lastMsgId: id(7) },
    ]);
    expect(Object.fromEntries(marks)).toEqual({
      'chat bob': { readMsgId: id(1), hiddenMsgId: '0', clearedMsgId: '0', pinnedAt: 0, markSet: 0 },
      'chat carol': { readMsgId: '0', hiddenMsgId: '0', clearedMsgId: '0', pinnedAt: 1000, markSet: 0 },
      'chat dan': { readMsgId: '0', hiddenMsgId: '0', clearedMsgId: '0', pinnedAt: 0, markSet: 4 },
      'chat zed': { readMsgId: '0', hiddenMsgId: '0', clearedMsgId: '0', pinnedAt: 2000, markSet: 0 },
    });
  });

  it("reads a page's last messages and unread counts in one statement, in the items' order", async () => {
    const counter = statementCounter();
    const found = await kyselyImConversations(storage.db.withPlugin(counter), engine).page(
      APP.id,
      'alice',
      [
        { kind: 'group', peer: 'g1', lastMsgId: id(7), afterMsgId: '0' },
        { kind: 'chat', peer: 'bob', lastMsgId: id(3), afterMsgId: id(1) },
        { kind: 'chat', peer: 'gone', lastMsgId: id(999), afterMsgId: '0' },
        { kind: 'chat', peer: 'carol', lastMsgId: id(4), afterMsgId: id(4) },
      ],
    );
    expect(counter.count).toBe(1);
    // g1: bob's 6, not alice's own 7; bob: 2 (1 is not after the bound given, 3 is alice's); carol: read up to 4.
    expect(found.map((f) => [f.last?.msgId, f.last?.payload.bodies[0], f.unread])).toEqual([
      [id(7), { type: 'txt', msg: 'm7' }, 1],
      [id(3), { type: 'txt', msg: 'm3' }, 1],
      [undefined, undefined, 0],
      [id(4), { type: 'txt', msg: 'm4' }, 0],
    ]);
    expect(await kyselyImConversations(storage.db, engine).page(APP.id, 'alice', [])).toEqual([]);
  });

  it('lists a page in two statements: conversations with marks, then last messages with unread counts', async () => {
    const counter = statementCounter();
    const conversations = new ImConversations(kyselyImConversations(storage.db.withPlugin(counter), engine), clock, 30 * DAY);
    const page = await conversations.list(IM_APP, 'alice', 50, undefined);
    expect(counter.count).toBe(2);
    expect(page.entries.map((e) => [e.kind, e.peer, e.last.msgId, e.unread, e.pinnedAt, e.markSet])).toEqual([
      ['group', 'g1', id(7), 1, 0, 0],
      ['chat', 'dan', id(5), 0, 0, 4],
      ['chat', 'carol', id(4), 1, 1000, 0],
      ['chat', 'bob', id(3), 1, 0, 0],
    ]);
    const pinned = await conversations.list(IM_APP, 'alice', 50, undefined, { pinned: true });
    expect(pinned.entries.map((e) => e.peer)).toEqual(['carol']);
  });

  it('counts as unread only the messages of the history period, by the time their ids hold', async () => {
    const issued = (ms: number, n: number) => Number(firstIdAt(ms)) + n;
    const message = (msgId: number, timestamp: number) => ({ app_id: APP.id, msg_id: msgId, sender: 'frank', receiver: 'erin', chat_type: 'chat' as const, source: 'rest' as const, timestamp, payload: JSON.stringify({ bodies: [{ type: 'txt', msg: String(msgId) }], ext: {} }) });
    const old = clock.now() - 40 * DAY;
    const recent = clock.now() - DAY;
    await storage.db.insertInto('im_messages').values([message(issued(old, 0), old), message(issued(old, 1), old), message(issued(recent, 0), recent)]).execute();
    const page = await new ImConversations(kyselyImConversations(storage.db, engine), clock, 30 * DAY).list(IM_APP, 'erin', 50, undefined);
    expect(page.entries.map((e) => [e.peer, e.last.msgId, e.unread])).toEqual([['frank', String(issued(recent, 0)), 1]]);
    const all = await new ImConversations(kyselyImConversations(storage.db, engine), clock, 60 * DAY).list(IM_APP, 'erin', 50, undefined);
    expect(all.entries.map((e) => e.unread)).toEqual([3]);
  });
});
