import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { associationNames as postgresMigration } from '../../src/storage/postgres/migrations/070-association-names.js';
import { associationNames as sqliteMigration } from '../../src/storage/sqlite/migrations/070-association-names.js';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('association names on %s', (engine) => {
  let t: TestApp;
  let root: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('are unique per tenant: 409 duplicate_name on create and on rename, nothing written', async () => {
    const tenant = await createTenant(t.app, root, 'Names');
    const other = await createTenant(t.app, root, 'NamesOther');
    const base = `/api/tenants/${tenant.tenantId}/rest/channels`;
    await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'WeChat bridge' });
    const app = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'App' });

    const created = await call(t.app, tenant.adminToken, 'POST', base, { name: ' WeChat bridge ', callback_url: 'http://127.0.0.1:9/other' });
    expect(created.status).toBe(409);
    expect(created.body.errorCode).toBe('duplicate_name');
    expect(created.body.errorDescription).toContain('WeChat bridge');
    expect((await call(t.app, tenant.adminToken, 'GET', base)).body.total).toBe(2);

    const renamed = await call(t.app, tenant.adminToken, 'PUT', `${base}/${app.channelId}`, { name: 'WeChat bridge', callback_url: 'http://127.0.0.1:9/changed' });
    expect(renamed.status).toBe(409);
    expect(renamed.body.errorCode).toBe('duplicate_name');
    const kept = await call(t.app, tenant.adminToken, 'GET', `${base}/${app.channelId}`);
    expect(kept.body.entity).toMatchObject({ name: 'App', callbackUrl: 'http://127.0.0.1:9/hook' });

    // Saving an association under its own name is no conflict; another tenant may use the name.
    expect((await call(t.app, tenant.adminToken, 'PUT', `${base}/${app.channelId}`, { name: 'App' })).status).toBe(200);
    await createAssociation(t.app, other.adminToken, other.tenantId, 'http://127.0.0.1:9/hook', { name: 'WeChat bridge' });
  });

  it('migration 070 renames existing duplicates instead of failing, then enforces the rule', async () => {
    const db = t.app.parley.storage.db;
    const tenant = await createTenant(t.app, root, 'Legacy');
    // A database from before the rule: no unique index, duplicates present.
    await sql.raw('DROP INDEX rest_channels_tenant_name').execute(db);
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'Shop' });
    const b = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'Shop' });
    const c = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'Shop' });

    const migration = engine === 'sqlite' ? sqliteMigration : postgresMigration;
    await db.transaction().execute(async (trx) => {
      for (const statement of migration.statements) await sql.raw(statement).execute(trx);
    });

    const list = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels`);
    const names = Object.fromEntries(list.body.entities.map((x: { channelId: number; name: string }) => [x.channelId, x.name]));
    expect(names).toEqual({ [a.channelId]: 'Shop', [b.channelId]: `Shop (${b.channelId})`, [c.channelId]: `Shop (${c.channelId})` });
    const again = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, { name: 'Shop', callback_url: 'http://127.0.0.1:9/hook' });
    expect(again.status).toBe(409);
  });
});
