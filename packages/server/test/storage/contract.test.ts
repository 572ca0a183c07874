/**
 * The storage contract every engine must meet: migrations, the newer-schema refusal, and the
 * accounts repository's atomicity, uniqueness and password reset.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/storage/errors.js';
import { openStorage, type Storage } from '../../src/storage/index.js';
import { kyselyAccountsRepository } from '../../src/storage/repositories/accounts.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/engines.js';

describe.each(ENGINES)('storage contract on %s', (engine) => {
  let tdb: TestDatabase;
  let storage: Storage;
  const clock = new FakeClock();

  beforeEach(async () => {
    tdb = await createTestDatabase(engine);
    storage = await openStorage(tdb.config, clock);
  });
  afterEach(async () => {
    await storage.close();
    await tdb.destroy();
  });

  it('applies every migration once and reports the schema version', async () => {
    expect(storage.schemaVersion).toBeGreaterThanOrEqual(2);
    expect(storage.capabilities.engine).toBe(engine);
    await storage.close();
    storage = await openStorage(tdb.config, clock); // second open: nothing to apply
    const rows = await storage.db.selectFrom('parley_migrations').select('version').execute();
    expect(new Set(rows.map((r) => r.version)).size).toBe(rows.length);
  });

  it('refuses a database whose schema is newer than this build', async () => {
    await storage.db.insertInto('parley_migrations').values({ version: 9999, name: 'from the future', applied_at: 0 }).execute();
    await storage.close();
    await expect(openStorage(tdb.config, clock)).rejects.toThrow(/newer than this Parley build/);
    // afterEach closes `storage` again; closing twice is harmless.
  });

  it('round-trips numbers as numbers (ids and millisecond timestamps)', async () => {
    const repo = kyselyAccountsRepository(storage.db);
    const { tenant, admin } = await repo.createTenant(
      { name: 'N', edition: 'flagship', admin: { username: 'n@n.io', passwordHash: 'x', nickname: 'n', avatar: null, role: 'admin', maxSessions: 3 } },
      1_893_456_000_123,
    );
    expect(typeof tenant.id).toBe('number');
    expect(tenant.createdAt).toBe(1_893_456_000_123);
    expect((await repo.getUser(admin.id))?.createdAt).toBe(1_893_456_000_123);
    expect(await repo.queueIdsOf(admin.id)).toEqual([tenant.defaultQueueId]);
  });

  it('creates a tenant atomically: a taken admin name leaves no tenant behind', async () => {
    const repo = kyselyAccountsRepository(storage.db);
    const admin = { username: 'same@x.io', passwordHash: 'x', nickname: 'a', avatar: null, role: 'admin' as const, maxSessions: 1 };
    await repo.createTenant({ name: 'First', edition: 'flagship', admin }, 1);
    const error = await repo.createTenant({ name: 'Second', edition: 'standard', admin }, 2).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    expect((await repo.listTenants()).map((t) => t.name)).toEqual(['First']);
    const groups = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM skill_groups`.execute(storage.db);
    expect(Number(groups.rows[0]?.n)).toBe(1);
  });

  it('keeps skill-group names unique per tenant only', async () => {
    const repo = kyselyAccountsRepository(storage.db);
    const mk = (u: string) => ({ username: u, passwordHash: 'x', nickname: 'a', avatar: null, role: 'admin' as const, maxSessions: 1 });
    const a = await repo.createTenant({ name: 'A', edition: 'flagship', admin: mk('a@a.io') }, 1);
    const b = await repo.createTenant({ name: 'B', edition: 'flagship', admin: mk('b@b.io') }, 1);
    await repo.createSkillGroup(a.tenant.id, 'sales', 1);
    await repo.createSkillGroup(b.tenant.id, 'sales', 1);
    expect(isUniqueViolation(await repo.createSkillGroup(a.tenant.id, 'sales', 1).catch((e: unknown) => e))).toBe(true);
  });

  it('expires tokens by time', async () => {
    const repo = kyselyAccountsRepository(storage.db);
    const user = await repo.createUser({ tenantId: null, username: 't@t.io', passwordHash: 'x', nickname: 't', avatar: null, role: 'system_admin', maxSessions: 0, queueIds: [] }, 1);
    await repo.saveToken('h1', user.id, 1000);
    await repo.saveToken('h2', user.id, 5000);
    expect(await repo.deleteExpiredTokens(1000)).toBe(1);
    expect(await repo.findToken('h1')).toBeUndefined();
    expect(await repo.findToken('h2')).toEqual({ userId: user.id, expiresAt: 5000 });
  });

  it("resets a password and revokes that user's tokens only, in one write", async () => {
    const repo = kyselyAccountsRepository(storage.db);
    const mk = (username: string) => ({ tenantId: null, username, passwordHash: 'old', nickname: 'n', avatar: null, role: 'system_admin' as const, maxSessions: 0, queueIds: [] });
    const user = await repo.createUser(mk('r@r.io'), 1);
    const other = await repo.createUser(mk('o@o.io'), 1);
    await repo.saveToken('mine-1', user.id, 9000);
    await repo.saveToken('mine-2', user.id, 9000);
    await repo.saveToken('theirs', other.id, 9000);
    await repo.resetPassword(user.id, 'new');
    expect((await repo.getUser(user.id))?.passwordHash).toBe('new');
    expect(await repo.findToken('mine-1')).toBeUndefined();
    expect(await repo.findToken('mine-2')).toBeUndefined();
    expect(await repo.findToken('theirs')).toEqual({ userId: other.id, expiresAt: 9000 });
    expect((await repo.getUser(other.id))?.passwordHash).toBe('old');
  });
});
