/**
 * PostgreSQL: the history and conversation-list indexes of `im_messages` are partial by chat type
 * (migration 131), so a lookup by `(app_id, msg_id)` (the foreign-key checks of
 * `im_pending_fanout` and `im_offline`, one per message, planned once per connection and possibly
 * while the table is still empty) keeps to the primary key instead of walking a whole app's range
 * of another index; and the reads, which name the chat type, still use them.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/storage/migrate.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations/index.js';
import { openPostgres } from '../../src/storage/postgres/open.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

const APP = { id: 'app-1', org_name: 'org', app_name: 'app', client_id: 'cid', client_secret_hash: 'x', created_at: 0 };

async function plan(client: pg.Client, text: string, params: unknown[]): Promise<string> {
  const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params)).rows;
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe.runIf(ENGINES.includes('postgres'))('im_messages indexes on PostgreSQL', () => {
  let target: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    const opened = openPostgres(target.config.databaseUrl!);
    await migrate(opened.db, postgresMigrations, { now: () => 1 });
    await opened.db.insertInto('im_apps').values(APP).execute();
    await opened.db.destroy();
    client = new pg.Client({ connectionString: target.config.databaseUrl });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await target?.destroy();
  });

  it("has migration 83's indexes only as partial ones by chat type", async () => {
    const rows = (await client.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'im_messages' ORDER BY indexname`)).rows;
    expect(rows.map((r) => r.indexname)).toEqual(['im_messages_chat_pair', 'im_messages_chat_receiver', 'im_messages_group_receiver', 'im_messages_pkey']);
    for (const r of rows.filter((x) => x.indexname !== 'im_messages_pkey')) expect(r.indexdef).toMatch(/WHERE \(chat_type (=|<>) 'chat'::text\)/);
  });

  it('plans the foreign-key lookup by (app_id, msg_id) on the primary key while the table is empty and never analysed', async () => {
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('PREPARE fk_check(text, bigint) AS SELECT 1 FROM ONLY im_messages x WHERE app_id = $1 AND msg_id = $2 FOR KEY SHARE OF x');
    const text = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE fk_check('app-1', 1)`)).rows.map((r) => r['QUERY PLAN']).join('\n');
    await client.query('DEALLOCATE fk_check');
    await client.query('RESET plan_cache_mode');
    expect(text).toContain('im_messages_pkey');
    expect(text).not.toMatch(/im_messages_(chat|group)/);
  });

  it('reads a pair, a group and a user\'s received messages through the partial indexes', async () => {
    await client.query(
      `INSERT INTO im_messages (app_id, msg_id, sender, receiver, chat_type, source, timestamp, payload)
       SELECT 'app-1', g, 'u' || (g % 50), CASE WHEN g % 3 = 0 THEN 'group-' || (g % 7) ELSE 'u' || (g % 41) END,
              CASE WHEN g % 3 = 0 THEN 'groupchat' ELSE 'chat' END, 'rest', g, '{}'
       FROM generate_series(1, 20000) g`,
    );
    await client.query('ANALYZE im_messages');
    const history = await plan(client, `SELECT * FROM im_messages WHERE app_id = $1 AND sender = $2 AND receiver = $3 AND chat_type = 'chat' AND timestamp >= $4 ORDER BY msg_id DESC LIMIT 20`, ['app-1', 'u1', 'u1', 0]);
    expect(history).toContain('im_messages_chat_pair');
    const group = await plan(client, `SELECT * FROM im_messages WHERE app_id = $1 AND receiver = $2 AND chat_type <> 'chat' AND timestamp >= $3 ORDER BY msg_id DESC LIMIT 20`, ['app-1', 'group-1', 0]);
    expect(group).toContain('im_messages_group_receiver');
    const received = await plan(client, `SELECT sender, msg_id FROM im_messages WHERE app_id = $1 AND receiver = $2 AND chat_type = 'chat'`, ['app-1', 'u7']);
    expect(received).toContain('im_messages_chat_receiver');
    const groupLast = await plan(client, `SELECT max(msg_id) FROM im_messages WHERE app_id = $1 AND receiver = $2 AND chat_type <> 'chat'`, ['app-1', 'group-1']);
    expect(groupLast).toContain('im_messages_group_receiver');
  });
});
