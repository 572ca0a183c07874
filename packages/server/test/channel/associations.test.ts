import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, postRaw, customerMessage, sendCustomerMessage } from '../helpers/channel.js';
import { ENGINES } from '../helpers/engines.js';
import { FakeClock } from '../helpers/clock.js';
import { secretBox, loadOrCreateSecretKey } from '../../src/kernel/secret-box.js';
import { AssociationsService } from '../../src/modules/channel/associations.js';
import type { AssociationsRepository } from '../../src/modules/channel/ports.js';
import { kyselyAssociationsRepository, kyselyRoutingDirectory } from '../../src/storage/repositories/channel-associations.js';

describe.each(ENGINES)('REST associations on %s', (engine) => {
  let t: TestApp;
  let root: string;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Assoc');
  });
  afterAll(async () => t?.close());

  it('creates an association with generated credentials and reads, lists, updates and deletes it', async () => {
    const base = `/api/tenants/${tenant.tenantId}/rest/channels`;
    const created = await call(t.app, tenant.adminToken, 'POST', base, { name: 'WeChat bridge', callback_url: 'http://127.0.0.1:9/hook', agent_queue_id: tenant.defaultQueueId });
    expect(created.status).toBe(200);
    const a = created.body.entity;
    expect(a).toMatchObject({ tenantId: tenant.tenantId, name: 'WeChat bridge', callbackUrl: 'http://127.0.0.1:9/hook', agentQueueId: tenant.defaultQueueId });
    expect(a.clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.clientSecret).toMatch(/^[0-9a-f]{32}$/);
    expect(Number.isInteger(a.channelId)).toBe(true);
    expect(a.postMessageUrl).toBe(`/api/tenants/${tenant.tenantId}/rest/channels/${a.channelId}/messages`);
    expect(a.createDateTime).toBe(t.clock.now());

    expect((await call(t.app, tenant.adminToken, 'GET', `${base}/${a.channelId}`)).body.entity).toEqual(a);
    const listed = await call(t.app, tenant.adminToken, 'GET', base);
    expect(listed.body.entities.map((x: { channelId: number }) => x.channelId)).toContain(a.channelId);

    const updated = await call(t.app, tenant.adminToken, 'PUT', `${base}/${a.channelId}`, { name: 'renamed', agent_queue_id: null });
    expect(updated.body.entity).toMatchObject({ name: 'renamed', agentQueueId: null, clientSecret: a.clientSecret });

    expect((await call(t.app, tenant.adminToken, 'DELETE', `${base}/${a.channelId}`)).status).toBe(200);
    const gone = await call(t.app, tenant.adminToken, 'GET', `${base}/${a.channelId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.errorCode).toBe('not_found');
  });

  it('stores the Client Secret encrypted, not in clear', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const row = await t.app.parley.storage.db.selectFrom('rest_channels').selectAll().where('id', '=', a.channelId).executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(a.clientSecret);
    expect(row.secret_sealed.startsWith('v1.')).toBe(true);
  });

  it('rotates the secret without overlap: the old one stops working, the new one works', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const body = customerMessage({ from: 'rotating' });
    expect((await postRaw(t.app, a, body)).status).toBe(200);
    const rotated = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels/${a.channelId}/secret`, { overlap_seconds: 0 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.entity.clientSecret as string;
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(a.clientSecret);
    const old = await postRaw(t.app, a, customerMessage({ from: 'rotating', msg_id: 'after-rotation' }));
    expect(old.status).toBe(401);
    expect(old.body.errorCode).toBe('invalid_signature');
    expect((await postRaw(t.app, { ...a, clientSecret: fresh }, customerMessage({ from: 'rotating', msg_id: 'after-rotation' }))).status).toBe(200);
  });

  it('refuses a standard-edition tenant with 403 edition_not_supported', async () => {
    const standard = await createTenant(t.app, root, 'Standard', 'standard');
    const res = await call(t.app, standard.adminToken, 'POST', `/api/tenants/${standard.tenantId}/rest/channels`, { name: 'x', callback_url: 'https://example.com/hook' });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('edition_not_supported');
    expect((await call(t.app, standard.adminToken, 'GET', `/api/tenants/${standard.tenantId}/rest/channels`)).status).toBe(403);
  });

  it('validates the callback URL, the name and the default queue', async () => {
    const base = `/api/tenants/${tenant.tenantId}/rest/channels`;
    const ftp = await call(t.app, tenant.adminToken, 'POST', base, { name: 'x', callback_url: 'ftp://example.com/hook' });
    expect(ftp.status).toBe(400);
    expect(ftp.body.errorCode).toBe('invalid_callback_url');
    const noName = await call(t.app, tenant.adminToken, 'POST', base, { callback_url: 'https://example.com/hook' });
    expect(noName.status).toBe(400);
    expect(noName.body.errorDescription).toContain('name');
    const badQueue = await call(t.app, tenant.adminToken, 'POST', base, { name: 'x', callback_url: 'https://example.com/hook', agent_queue_id: '999999' });
    expect(badQueue.status).toBe(400);
    expect(badQueue.body.errorDescription).toContain('agent_queue_id');
  });

  it('lets only the tenant admin manage associations', async () => {
    const other = await createTenant(t.app, root, 'Other');
    const res = await call(t.app, other.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels`);
    expect(res.status).toBe(403);
    expect((await call(t.app, undefined, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels`)).status).toBe(401);
  });
  it('reads an uncached Client ID once for concurrent requests, and again once the cache time is over', async () => {
    const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const { storage, accounts, outbound, config } = t.app.parley;
    // The real repository, counting its reads: the service under test gets its own cache and clock.
    const repo = kyselyAssociationsRepository(storage.db);
    let reads = 0;
    const counting: AssociationsRepository = {
      ...repo,
      findByClientId: (clientId) => {
        reads++;
        return repo.findByClientId(clientId);
      },
    };
    const clock = new FakeClock();
    const box = secretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir));
    const service = new AssociationsService(counting, kyselyRoutingDirectory(storage.db), accounts, box, outbound, clock);

    const found = await Promise.all(Array.from({ length: 64 }, () => service.byClient(a.clientId)));
    expect(reads).toBe(1);
    expect(found.every((f) => f?.id === a.channelId && f.clientSecret === a.clientSecret)).toBe(true);
    await service.byClient(a.clientId);
    expect(reads).toBe(1);

    clock.advance(5_001);
    await Promise.all([service.byClient(a.clientId), service.byClient(a.clientId)]);
    expect(reads).toBe(2);
  });
});

describe('callback address guard (PARLEY_ALLOW_PRIVATE_CALLBACKS unset)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { env: { PARLEY_ALLOW_PRIVATE_CALLBACKS: 'false' } });
  });
  afterAll(async () => t?.close());

  it.each(['http://127.0.0.1:8080/hook', 'http://10.0.0.5/hook', 'http://169.254.169.254/latest', 'http://localhost/hook', 'http://[::1]/hook'])(
    'refuses %s with 400 invalid_callback_url',
    async (url) => {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, `Guard${Math.random().toString(36).slice(2, 8)}`);
      const res = await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, { name: 'x', callback_url: url });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('invalid_callback_url');
    },
  );

  it('checks the address again at send time: a callback that now points inside is refused and logged', async () => {
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    const tenant = await createTenant(t.app, root, 'SendTimeGuard');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://93.184.216.34/hook');
    // As if its DNS name had been re-pointed at an internal address after it was saved.
    await t.app.parley.storage.db.updateTable('rest_channels').set({ callback_url: 'http://127.0.0.1:9/hook' }).where('id', '=', assoc.channelId).execute();
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], online: true });
    const sent = await sendCustomerMessage(t.app, assoc, { from: 'guarded' });
    const reply = await call(t.app, agent.token, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'hi' }] });
    expect(reply.status).toBe(200);
    await t.app.parley.jobs.idle();
    const log = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}/deliveries`);
    expect(log.body.entities[0].attempts[0]).toMatchObject({ succeeded: false, statusCode: null, error: expect.stringContaining('blocked_address') });
  });
});
