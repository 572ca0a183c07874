/**
 * The IM message committer: messages accepted while a commit is pending share ONE transaction and
 * ONE fan-out job, and each caller is answered only once its message is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlJobQueue } from '../../src/storage/jobs/sql-queue.js';
import { FANOUT_QUEUE, MessageCommitter, type FanoutPayload } from '../../src/modules/im/commit.js';
import { IdGenerator } from '../../src/modules/im/msg-id.js';
import type { StoredMessage } from '../../src/modules/im/ports.js';
import type { Storage } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/clock.js';
import { createTestStorage, ENGINES } from '../helpers/engines.js';
import { testUnitOfWork } from '../helpers/unit-of-work.js';

describe.each(ENGINES)('IM message committer on %s', (engine) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let committer: MessageCommitter;
  let ids: IdGenerator;
  const clock = new FakeClock();

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(engine, clock));
    await storage.db
      .insertInto('im_apps')
      .values({ id: 'app-1', org_name: 'org', app_name: 'app', client_id: 'cid', client_secret_hash: 'x', created_at: 0 })
      .execute();
    const jobs = new SqlJobQueue({ db: storage.db, capabilities: storage.capabilities, clock });
    ids = new IdGenerator(clock);
    committer = new MessageCommitter(testUnitOfWork(storage, jobs).uow, ids);
  });
  afterAll(async () => cleanup?.());

  const message = (to: string): StoredMessage => ({
    appId: 'app-1',
    msgId: ids.next(),
    from: 'alice',
    to,
    chatType: 'chat',
    source: 'rest',
    timestamp: clock.now(),
    payload: { bodies: [{ type: 'txt', msg: `hello ${to}` }], ext: {} },
  });

  it('writes messages committed in the same turn in one transaction with one fan-out job', async () => {
    const batch = ['u1', 'u2', 'u3', 'u4', 'u5'].map(message);
    // Separate callers, as separate requests would be; the first does not start a commit of its own.
    await Promise.all(batch.map((m) => committer.commit([m])));

    const stored = await storage.db.selectFrom('im_messages').select('receiver').orderBy('msg_id').execute();
    expect(stored.map((r) => r.receiver)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5']);
    const jobs = await storage.db.selectFrom('jobs').select('payload').where('queue', '=', FANOUT_QUEUE).execute();
    expect(jobs).toHaveLength(1);
    const payload = JSON.parse((jobs[0] as { payload: string }).payload) as FanoutPayload;
    expect(payload.messages.map((m) => m.msgId)).toEqual(batch.map((m) => m.msgId));
  });

  it('answers a caller only after its message is stored', async () => {
    const m = message('u6');
    await committer.commit([m]);
    const row = await storage.db.selectFrom('im_messages').select('msg_id').where('msg_id', '=', Number(m.msgId)).executeTakeFirst();
    expect(row).toBeDefined();
  });
});
