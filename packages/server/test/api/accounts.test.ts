import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('accounts API on %s', (engine) => {
  let t: TestApp;
  let root: string;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('logs in the bootstrap system admin with an expiring token', async () => {
    const res = await call(t.app, undefined, 'POST', '/api/login', { username: ADMIN.username, password: ADMIN.password });
    expect(res.status).toBe(200);
    expect(res.body.entity.user).toMatchObject({ username: 'root', role: 'system_admin', tenantId: null });
    expect(res.body.entity.expires_in).toBe(86400);
    const token = res.body.entity.access_token as string;
    expect((await call(t.app, token, 'GET', '/api/tenants')).status).toBe(200);
    clock.advance(86400 * 1000 + 1);
    const expired = await call(t.app, token, 'GET', '/api/tenants');
    expect(expired.status).toBe(401);
    expect(expired.body.errorCode).toBe('unauthorized');
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });

  it('rejects a wrong password with 401 invalid_credentials', async () => {
    const res = await call(t.app, undefined, 'POST', '/api/login', { username: ADMIN.username, password: 'nope-nope' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 'FAIL', errorCode: 'invalid_credentials' });
  });

  it('creates tenants with a default skill group, skill groups, agents and agent status', async () => {
    const { tenantId, adminToken, defaultQueueId } = await createTenant(t.app, root, 'Acme');
    const tenant = await call(t.app, adminToken, 'GET', `/api/tenants/${tenantId}`);
    expect(tenant.body.entity).toMatchObject({ tenantId, name: 'Acme', edition: 'flagship', vipTags: ['vip'] });

    const group = await call(t.app, adminToken, 'POST', `/api/tenants/${tenantId}/skill-groups`, { queue_name: '售后' });
    expect(group.status).toBe(200);
    expect(group.body.entity).toEqual({ queue_id: expect.any(String), queue_name: '售后' });
    const groups = await call(t.app, adminToken, 'GET', `/api/tenants/${tenantId}/skill-groups`);
    expect(groups.body.entities.map((g: { queue_id: string }) => g.queue_id)).toEqual([defaultQueueId, group.body.entity.queue_id]);
    expect(groups.body.total).toBe(2);

    const agent = await call(t.app, adminToken, 'POST', `/api/tenants/${tenantId}/agents`, {
      username: 'Alice@Acme.com',
      password: 'alice-password',
      nickname: 'Alice',
      role: 'agent',
      queue_ids: [group.body.entity.queue_id],
      max_sessions: 3,
    });
    expect(agent.status).toBe(200);
    expect(agent.body.entity).toMatchObject({ username: 'alice@acme.com', role: 'agent', queue_ids: [group.body.entity.queue_id], max_sessions: 3, status: 'offline' });

    const alice = await login(t.app, 'alice@acme.com', 'alice-password');
    const status = await call(t.app, alice, 'PUT', `/api/tenants/${tenantId}/agents/${agent.body.entity.id}/status`, { status: 'online' });
    expect(status.status).toBe(200);
    const agents = await call(t.app, adminToken, 'GET', `/api/tenants/${tenantId}/agents`);
    expect(agents.body.entities.find((a: { id: number }) => a.id === agent.body.entity.id).status).toBe('online');

    const vip = await call(t.app, adminToken, 'PUT', `/api/tenants/${tenantId}/settings`, { vip_tags: ['gold', 'vip'] });
    expect(vip.body.entity.vipTags).toEqual(['gold', 'vip']);
  });

  it('answers 409 for a duplicate login name and writes nothing', async () => {
    const before = await call(t.app, root, 'GET', '/api/tenants');
    const res = await call(t.app, root, 'POST', '/api/tenants', {
      name: 'Dup',
      edition: 'standard',
      admin: { username: ADMIN.username, password: 'whatever-pw', nickname: 'x' },
    });
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('conflict');
    const after = await call(t.app, root, 'GET', '/api/tenants');
    expect(after.body.total).toBe(before.body.total);
  });

  it('isolates tenants and enforces roles', async () => {
    const a = await createTenant(t.app, root, 'TenantA');
    const b = await createTenant(t.app, root, 'TenantB');
    // A tenant admin never sees or changes another tenant.
    expect((await call(t.app, a.adminToken, 'GET', `/api/tenants/${b.tenantId}`)).status).toBe(403);
    expect((await call(t.app, a.adminToken, 'GET', `/api/tenants/${b.tenantId}/agents`)).status).toBe(403);
    expect((await call(t.app, a.adminToken, 'POST', `/api/tenants/${b.tenantId}/skill-groups`, { queue_name: 'x' })).status).toBe(403);
    // Only the system admin creates or lists tenants.
    const denied = await call(t.app, a.adminToken, 'POST', '/api/tenants', { name: 'X', edition: 'flagship', admin: { username: 'x@x.io', password: 'xxxxxxxx', nickname: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.errorCode).toBe('forbidden');
    expect((await call(t.app, a.adminToken, 'GET', '/api/tenants')).status).toBe(403);

    // Agents read but do not administer, and set only their own status.
    await call(t.app, a.adminToken, 'POST', `/api/tenants/${a.tenantId}/agents`, { username: 'bob@a.io', password: 'bob-password', nickname: 'Bob', role: 'agent', queue_ids: [] });
    const carol = await call(t.app, a.adminToken, 'POST', `/api/tenants/${a.tenantId}/agents`, { username: 'carol@a.io', password: 'carol-password', nickname: 'Carol', role: 'agent', queue_ids: [] });
    const bob = await login(t.app, 'bob@a.io', 'bob-password');
    expect((await call(t.app, bob, 'GET', `/api/tenants/${a.tenantId}/skill-groups`)).status).toBe(200);
    expect((await call(t.app, bob, 'POST', `/api/tenants/${a.tenantId}/skill-groups`, { queue_name: 'y' })).status).toBe(403);
    expect((await call(t.app, bob, 'PUT', `/api/tenants/${a.tenantId}/agents/${carol.body.entity.id}/status`, { status: 'online' })).status).toBe(403);
  });

  it('validates input and names the field', async () => {
    const { tenantId, adminToken } = await createTenant(t.app, root, 'Val');
    const badEdition = await call(t.app, root, 'POST', '/api/tenants', { name: 'V', edition: 'gold', admin: { username: 'v@v.io', password: 'vvvvvvvv', nickname: 'v' } });
    expect(badEdition.status).toBe(400);
    expect(badEdition.body.errorCode).toBe('invalid_request');
    expect(badEdition.body.errorDescription).toContain('edition');
    const badQueue = await call(t.app, adminToken, 'POST', `/api/tenants/${tenantId}/agents`, { username: 'q@v.io', password: 'qqqqqqqq', nickname: 'q', role: 'agent', queue_ids: ['999999'] });
    expect(badQueue.status).toBe(400);
    expect(badQueue.body.errorDescription).toContain('queue_ids');
    const agents = await call(t.app, adminToken, 'GET', `/api/tenants/${tenantId}/agents`);
    expect(agents.body.entities.map((a: { username: string }) => a.username)).not.toContain('q@v.io');
    const unknownTenant = await call(t.app, root, 'GET', '/api/tenants/987654');
    expect(unknownTenant.status).toBe(404);
  });
});
