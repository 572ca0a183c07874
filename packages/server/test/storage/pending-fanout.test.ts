/**
 * A message's pending fan-out is a row of `im_pending_fanout` (migration 115), written with the
 * message and deleted by the fan-out: the offline reads find it by receiver, one fan-out settles
 * it, and the message's own row is never updated on the way. Migration 115 moves the messages
 * stored before it whose fan-out had not run.
 */
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageCommitter } from '../../src/modules/im/commit.js';
import { IdGenerator } from '../../src/modules/im/msg-id.js';
import { refKey, type StoredMessage } from '../../src/modules/im/ports.js';
import type { Storage } from '../../src/storage/index.js';
import { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import { migrate } from '../../src/storage/migrate.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations/index.js';
import { openPostgres } from '../../src/storage/postgres/open.js';
import type { Database } from '../../src/storage/schema.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';
import { openSqlite } from '../../src/storage/sqlite/open.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestDatabase, createTestStorage, ENGINES } from '../helpers/engines.js';
import { testUnitOfWork } from '../helpers/unit-of-work.js';

const APP = { id: 'app-1', org_name: 'org', app_name: 'app', client_id: 'cid', client_secret_hash: 'x', created_at: 0 };

async function addGroup(db: Kysely<Database>, id: string, members: string[]): Promise<void> {
  await db.insertInto('im_groups').values({ id, app_id: APP.id, kind: 'group', name: id, description: '', public: 1, maxusers: 200, owner: 'alice', created_at: 0, modified_at: 0 }).execute();
  await db
    .insertInto('im_members')
    .values(members.map((username) => ({ group_id: id, app_id: APP.id, username, role: username === 'alice' ? ('owner' as const) : ('member' as const), joined_at: 0 })))
    .execute();
}

describe.each(ENGINES)('pending fan-out on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let committer: MessageCommitter;
  let unit: ReturnType<typeof testUnitOfWork>;
  let ids: IdGenerator;
  const clock = new FakeClock();

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    await storage.db.insertInto('im_apps').values(APP).execute();
    await addGroup(storage.db, 'g1', ['alice', 'bob', 'carol']);
    // No worker: the fan-out jobs the commits write never run here.
    const jobs = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock });
    ids = new IdGenerator(clock);
    unit = testUnitOfWork(storage, jobs);
    committer = new MessageCommitter(unit.uow, ids);
  });
  afterAll(async () => cleanup?.());

  const message = (to: string, chatType: StoredMessage['chatType'] = 'chat'): StoredMessage => ({
    appId: APP.id,
    msgId: ids.next(),
    from: 'alice',
    to,
    chatType,
    source: 'rest',
    timestamp: clock.now(),
    payload: { bodies: [{ type: 'txt', msg: `hello ${to}` }], ext: {} },
  });
  const markDone = (refs: StoredMessage[]) => unit.uow.run((tx) => tx.im.markFanoutDone(refs));
  const pendingFor = async (username: string) => (await unit.imMessages.pendingFanoutFor(APP.id, username, 500)).map((r) => r.msgId);

  it('finds an accepted message by its receiver until one fan-out settles it; a second settles nothing', async () => {
    const direct = message('bob');
    const toGroup = message('g1', 'groupchat');
    const room = message('room-1', 'chatroom');
    await committer.commit([direct, toGroup, room]);

    expect(await pendingFor('bob')).toEqual([direct.msgId, toGroup.msgId]);
    expect(await pendingFor('carol')).toEqual([toGroup.msgId]);
    // The sender of a group message is a member: the read finds it, the fan-out leaves them out.
    expect(await pendingFor('alice')).toEqual([toGroup.msgId]);
    expect(await pendingFor('dave')).toEqual([]);
    const pending = await unit.imMessages.pendingFanout([direct, toGroup, room]);
    expect(pending.map((m) => m.msgId)).toEqual([direct.msgId, toGroup.msgId, room.msgId]);
    expect(pending[0]).toMatchObject({ from: 'alice', to: 'bob', chatType: 'chat', payload: direct.payload });

    expect(await markDone([direct])).toEqual(new Set([refKey(direct)]));
    expect(await markDone([direct])).toEqual(new Set());
    expect(await pendingFor('bob')).toEqual([toGroup.msgId]);
    expect(await markDone([direct, toGroup, room])).toEqual(new Set([refKey(toGroup), refKey(room)]));
    expect(await markDone([direct, toGroup, room])).toEqual(new Set());
    expect(await pendingFor('bob')).toEqual([]);
    expect(await pendingFor('carol')).toEqual([]);
    expect(await unit.imMessages.pendingFanout([direct, toGroup, room])).toEqual([]);

    // The messages themselves stay as they were written: the hot path never updates their rows.
    const rows = await storage.db.selectFrom('im_messages').select(['msg_id', 'fanout_done']).where('msg_id', 'in', [direct, toGroup, room].map((m) => Number(m.msgId))).execute();
    expect(rows.map((r) => Number(r.fanout_done))).toEqual([0, 0, 0]);
  });

  it('forgets the pending fan-out of a message removed before its fan-out ran', async () => {
    const recalled = message('carol');
    await committer.commit([recalled]);
    expect(await pendingFor('carol')).toEqual([recalled.msgId]);
    expect(await unit.uow.run((tx) => tx.im.removeMessage(recalled))).toEqual([]);
    expect(await pendingFor('carol')).toEqual([]);
    expect(await markDone([recalled])).toEqual(new Set());
  });

  it('pages a user with more pending messages than the limit, oldest first', async () => {
    const batch = [message('erin'), message('g1', 'groupchat'), message('erin'), message('erin')];
    await addGroup(storage.db, 'g2', ['alice', 'erin']);
    const toG2 = message('g2', 'groupchat');
    await committer.commit([...batch, toG2]);
    const erin = [batch[0], batch[2], batch[3], toG2].map((m) => m?.msgId);
    expect((await unit.imMessages.pendingFanoutFor(APP.id, 'erin', 3)).map((r) => r.msgId)).toEqual(erin.slice(0, 3));
    expect(await pendingFor('erin')).toEqual(erin);
  });
});

describe.each(ENGINES)('migration 115 on %s', (engine) => {
  it('moves the messages whose fan-out had not run into im_pending_fanout and drops the partial index', async () => {
    const target = await createTestDatabase(engine);
    const opened = target.config.databaseUrl ? openPostgres(target.config.databaseUrl) : openSqlite(path.join(target.config.dataDir, 'parley.db'));
    const migrations = engine === 'sqlite' ? sqliteMigrations : postgresMigrations;
    const db = opened.db;
    try {
      await migrate(db, migrations.filter((m) => m.version < 115), { now: () => 1 });
      await db.insertInto('im_apps').values(APP).execute();
      const row = (msgId: number, receiver: string, chatType: 'chat' | 'groupchat', fanoutDone: number) => ({
        app_id: APP.id,
        msg_id: msgId,
        sender: 'alice',
        receiver,
        chat_type: chatType,
        source: 'rest' as const,
        timestamp: 1,
        payload: '{"bodies":[],"ext":{}}',
        fanout_done: fanoutDone,
        live: null,
        live_by: null,
      });
      await db
        .insertInto('im_messages')
        .values([row(1, 'bob', 'chat', 1), row(2, 'bob', 'chat', 0), row(3, 'g1', 'groupchat', 0), row(4, 'carol', 'chat', 1)] as never)
        .execute();

      await migrate(db, migrations, { now: () => 2 });

      const moved = await db.selectFrom('im_pending_fanout').selectAll().orderBy('msg_id').execute();
      expect(moved.map((r) => ({ ...r, msg_id: Number(r.msg_id) }))).toEqual([
        { app_id: APP.id, msg_id: 2, receiver: 'bob', chat_type: 'chat' },
        { app_id: APP.id, msg_id: 3, receiver: 'g1', chat_type: 'groupchat' },
      ]);
      const indexes =
        engine === 'sqlite'
          ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'im_messages'`.execute(db)
          : await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'im_messages'`.execute(db);
      expect(indexes.rows.map((r) => r.name)).not.toContain('im_messages_pending_fanout');
      // A pending row goes with its message.
      await db.deleteFrom('im_messages').where('msg_id', '=', 2).execute();
      expect((await db.selectFrom('im_pending_fanout').select('msg_id').execute()).map((r) => Number(r.msg_id))).toEqual([3]);
    } finally {
      await opened.close();
      await target.destroy();
    }
  });
});
