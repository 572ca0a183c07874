import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/storage/migrate.js';
import { openSqlite } from '../../src/storage/sqlite/open.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';

describe('migration 119 on SQLite (the text index of the messages)', () => {
  it('fills the index from the messages stored before it, folded, txt bodies only; later writes follow', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-m119-'));
    const store = openSqlite(path.join(dir, 'parley.db'));
    const db = store.db;
    const message = (id: number, bodies: unknown[]) =>
      sql`INSERT INTO channel_messages (id, conversation_id, channel_id, direction, msg_id, bodies, ext, timestamp, created_at)
        VALUES (${id}, 1, 1, 'customer', ${`m${id}`}, ${JSON.stringify(bodies)}, '{}', 1, 1)`.execute(db);
    const found = async (needle: string) =>
      (await sql<{ rowid: number }>`SELECT rowid FROM channel_message_text WHERE channel_message_text MATCH ${`"${needle}"`} ORDER BY rowid`.execute(db)).rows.map((r) => r.rowid);
    try {
      await migrate(db, sqliteMigrations.filter((m) => m.version < 119), { now: () => 1 });
      await sql`INSERT INTO tenants (id, name, edition, created_at) VALUES (1, 't', 'flagship', 1)`.execute(db);
      await sql`INSERT INTO rest_channels (id, tenant_id, name, callback_url, client_id, secret_sealed, created_at, updated_at) VALUES (1, 1, 'a', 'http://x', 'cid', 's', 1, 1)`.execute(db);
      await sql`INSERT INTO channel_visitors (id, channel_id, customer_id, profile, tags, created_at, updated_at) VALUES (1, 1, 'c', '{}', '[]', 1, 1)`.execute(db);
      await sql`INSERT INTO conversations (id, tenant_id, channel_id, visitor_id, customer_id, state, queue_id, queued_at, created_at, updated_at) VALUES (1, 1, 1, 1, 'c', 'closed', 1, 1, 1, 1)`.execute(db);
      await message(1, [{ type: 'txt', msg: 'The KETTLE whistles' }]);
      await message(2, [{ type: 'img', url: 'http://x/kettle.png', filename: 'kettle.png' }]);
      await message(3, [{ type: 'txt', msg: 'Ещё один ЧАЙНИК' }]);

      await migrate(db, sqliteMigrations, { now: () => 2 });

      expect(await found('kettle')).toEqual([1]);
      expect(await found('чайник')).toEqual([3]);
      expect(await found('KETTLE')).toEqual([]);
      expect(await found('png')).toEqual([]);
      await message(4, [{ type: 'txt', msg: 'A new kettle' }]);
      expect(await found('kettle')).toEqual([1, 4]);
      await sql`DELETE FROM conversations WHERE id = 1`.execute(db);
      expect(await found('kettle')).toEqual([]);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
