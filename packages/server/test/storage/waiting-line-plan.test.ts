/**
 * The waiting line is read in order from its index (migration 137): the head of a queue (the
 * dispatcher's next conversation) and a page of the line are an index range with no sort, and the
 * head is the line's first in its order (VIPs first, then by time queued, then id).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/storage/migrate.js';
import { kyselyConversationsRepository } from '../../src/storage/repositories/channel-conversations.js';
import { waitingLineQuery } from '../../src/storage/repositories/channel-events.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';
import { openSqlite } from '../../src/storage/sqlite/open.js';

describe('the waiting line on SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-line-'));
  const store = openSqlite(path.join(dir, 'parley.db'));
  const db = store.db;

  beforeAll(async () => {
    await migrate(db, sqliteMigrations, { now: () => 1 });
    await sql`INSERT INTO tenants (id, name, edition, created_at) VALUES (1, 't', 'flagship', 1), (2, 'u', 'flagship', 1)`.execute(db);
    await sql`INSERT INTO rest_channels (id, tenant_id, name, callback_url, client_id, secret_sealed, created_at, updated_at) VALUES (1, 1, 'a', 'http://x', 'cid', 's', 1, 1)`.execute(db);
    // id, vip, queued_at, state: the head is the VIP queued first (4), then the others by time and id.
    const rows: Array<[number, number, number, string]> = [
      [1, 0, 10, 'waiting'],
      [2, 0, 5, 'waiting'],
      [3, 1, 20, 'waiting'],
      [4, 1, 15, 'waiting'],
      [5, 1, 1, 'closed'],
      [6, 0, 5, 'waiting'],
    ];
    for (const [id, vip, queuedAt, state] of rows) {
      await sql`INSERT INTO channel_visitors (id, channel_id, customer_id, profile, tags, created_at, updated_at) VALUES (${id}, 1, ${`c${id}`}, '{}', '[]', 1, 1)`.execute(db);
      await sql`INSERT INTO conversations (id, tenant_id, channel_id, visitor_id, customer_id, state, queue_id, vip, queued_at, created_at, updated_at)
        VALUES (${id}, 1, 1, ${id}, ${`c${id}`}, ${state}, 7, ${vip}, ${queuedAt}, 1, 1)`.execute(db);
    }
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the line from the index in its order, with no sort', async () => {
    for (const query of [waitingLineQuery(db, 1, 7).select('id').limit(1), waitingLineQuery(db, 1, 7).selectAll().limit(100)]) {
      const compiled = query.compile();
      const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      const details = plan.rows.map((r) => r.detail).join(' | ');
      expect(details).toContain('INDEX conversations_queue (tenant_id=? AND state=? AND queue_id=?)');
      expect(details).not.toContain('TEMP B-TREE');
    }
  });

  it("answers the head of the tenant's queue in the line's order", async () => {
    const repo = kyselyConversationsRepository(db, { engine: 'sqlite' });
    expect(await repo.nextWaiting(1, 7)).toBe(4);
    expect(await repo.nextWaiting(2, 7)).toBeUndefined();
    const line = await waitingLineQuery(db, 1, 7).select('id').execute();
    expect(line.map((r) => r.id)).toEqual([4, 3, 2, 6, 1]);
  });
});
