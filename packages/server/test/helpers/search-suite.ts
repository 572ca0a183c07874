/**
 * The set-up the conversation-search suites share: one app per engine with the periodic indexer off
 * (the tests run it), a fresh sales world per test, the conversation API of a world, and the
 * indexer's watermark and the last message id read from the database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { Engine } from '../../src/storage/index.js';
import { ADMIN, call, createTestApp, login, type TestApp } from './app.js';
import { createSalesWorld, type SalesWorld } from './channel.js';
import type { FakeClock } from './clock.js';

export interface SearchSuite {
  readonly t: TestApp;
  readonly clock: FakeClock;
  /** A new tenant with its `sales` group, association and agent. */
  world(): Promise<SalesWorld>;
  /** `/api/tenants/{tenant}/conversations{path}` with `token`. */
  api(w: SalesWorld, token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): ReturnType<typeof call>;
  /** The last message id the indexer has read (0 before its first run). */
  watermark(): Promise<number>;
  lastMessageId(): Promise<number>;
}

/** Registers the suite's beforeAll/afterAll; `prefix` names its tenants. */
export function searchSuite(engine: Engine, prefix: string): SearchSuite {
  let t: TestApp | undefined;
  let root = '';
  let n = 0;
  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_SEARCH_INDEX_INTERVAL_MS: '0' } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());
  const app = (): TestApp => {
    if (!t) throw new Error('the search suite has not started');
    return t;
  };
  const db = () => app().app.parley.storage.db;
  const stateTable = engine === 'sqlite' ? 'channel_message_fts_state' : 'channel_message_text_state';
  return {
    get t() {
      return app();
    },
    get clock() {
      return app().clock as FakeClock;
    },
    world: () => createSalesWorld(app().app, root, `${prefix}${++n}`),
    api: (w, token, method, path, body) => call(app().app, token, method, `/api/tenants/${w.tenantId}/conversations${path}`, body),
    watermark: async () => Number((await sql<{ n: number }>`SELECT indexed_to AS n FROM ${sql.table(stateTable)}`.execute(db())).rows[0]?.n ?? 0),
    lastMessageId: async () => Number((await sql<{ n: number }>`SELECT MAX(id) AS n FROM channel_messages`.execute(db())).rows[0]?.n),
  };
}
