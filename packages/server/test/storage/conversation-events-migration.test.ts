import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/storage/migrate.js';
import { openSqlite } from '../../src/storage/sqlite/open.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';

describe('migration 90 on SQLite (deliveries rebuilt so that an event has no message)', () => {
  it('keeps every delivery and attempt, their links and the cascade, and allows a delivery without a message', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-m90-'));
    const store = openSqlite(path.join(dir, 'parley.db'));
    const db = store.db;
    try {
      await migrate(db, sqliteMigrations.filter((m) => m.version < 90), { now: () => 1 });
      await sql`INSERT INTO tenants (id, name, edition, created_at) VALUES (1, 't', 'flagship', 1)`.execute(db);
      await sql`INSERT INTO rest_channels (id, tenant_id, name, callback_url, client_id, secret_sealed, created_at, updated_at) VALUES (1, 1, 'a', 'http://x', 'cid', 's', 1, 1)`.execute(db);
      await sql`INSERT INTO channel_visitors (id, channel_id, customer_id, profile, tags, created_at, updated_at) VALUES (1, 1, 'c', '{}', '[]', 1, 1)`.execute(db);
      await sql`INSERT INTO conversations (id, tenant_id, channel_id, visitor_id, customer_id, state, queue_id, queued_at, created_at, updated_at) VALUES (1, 1, 1, 1, 'c', 'waiting', 1, 1, 1, 1)`.execute(db);
      await sql`INSERT INTO channel_messages (id, conversation_id, channel_id, direction, msg_id, bodies, ext, timestamp, created_at) VALUES (1, 1, 1, 'agent', 'm1', '[]', '{}', 1, 1)`.execute(db);
      await sql`INSERT INTO deliveries (id, tenant_id, channel_id, conversation_id, message_id, customer_id, status, body, created_at, updated_at) VALUES ('dlv_1', 1, 1, 1, 1, 'c', 'failed', '{}', 1, 1)`.execute(db);
      await sql`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, latency_ms, succeeded) VALUES ('dlv_1', 1, 1, 5, 0)`.execute(db);

      await migrate(db, sqliteMigrations, { now: () => 2 });

      const rows = await sql<{ id: string; message_id: number | null; event: string | null }>`SELECT id, message_id, event FROM deliveries`.execute(db);
      expect(rows.rows).toEqual([{ id: 'dlv_1', message_id: 1, event: null }]);
      const attempts = await sql<{ delivery_id: string }>`SELECT delivery_id FROM delivery_attempts`.execute(db);
      expect(attempts.rows).toEqual([{ delivery_id: 'dlv_1' }]);
      await sql`INSERT INTO deliveries (id, tenant_id, channel_id, conversation_id, message_id, customer_id, status, body, created_at, updated_at, event) VALUES ('dlv_2', 1, 1, 1, NULL, 'c', 'pending', '{}', 2, 2, 'queued')`.execute(db);
      const channels = await sql<{ events: string }>`SELECT events FROM rest_channels`.execute(db);
      expect(channels.rows).toEqual([{ events: '[]' }]);
      // The attempts still point at deliveries: deleting one removes its attempts.
      await sql`DELETE FROM deliveries WHERE id = 'dlv_1'`.execute(db);
      expect((await sql`SELECT * FROM delivery_attempts`.execute(db)).rows).toEqual([]);
      const fk = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list('delivery_attempts')`.execute(db);
      expect(fk.rows).toEqual([{ table: 'deliveries' }]);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
