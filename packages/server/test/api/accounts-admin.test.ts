import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAgent, createAssociation, createQueue, postRaw, customerMessage, sendCustomerMessage, conversation, setStatus } from '../helpers/channel.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('editing tenants, skill groups and agents on %s', (engine) => {
  let t: TestApp;
  let root: string;
  const clock = new FakeClock();

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    root = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('lets the system admin rename a tenant and change its edition: a standard tenant refuses messages with 403 edition_not_supported', async () => {
    const tenant = await createTenant(t.app, root, 'Edition');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    // Accepted first, so the association is in the Client ID cache when the edition changes.
    await sendCustomerMessage(t.app, assoc, { from: 'cust-1', text: 'before' });

    const byAdmin = await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}`, { edition: 'standard' });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.errorCode).toBe('forbidden');

    const changed = await call(t.app, root, 'PUT', `/api/tenants/${tenant.tenantId}`, { name: ' Edition Ltd ', edition: 'standard' });
    expect(changed.status).toBe(200);
    expect(changed.body.entity).toMatchObject({ tenantId: tenant.tenantId, name: 'Edition Ltd', edition: 'standard' });

    const refused = await postRaw(t.app, assoc, customerMessage({ from: 'cust-1', text: 'after' }));
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('edition_not_supported');

    expect((await call(t.app, root, 'PUT', `/api/tenants/${tenant.tenantId}`, { edition: 'flagship' })).status).toBe(200);
    expect((await postRaw(t.app, assoc, customerMessage({ from: 'cust-1', text: 'again' }))).status).toBe(200);
  });

  it('validates a tenant edit and answers 404 for an unknown tenant', async () => {
    const tenant = await createTenant(t.app, root, 'EditVal');
    const bad = await call(t.app, root, 'PUT', `/api/tenants/${tenant.tenantId}`, { edition: 'gold' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorDescription).toContain('edition');
    expect((await call(t.app, root, 'PUT', `/api/tenants/${tenant.tenantId}`, {})).status).toBe(400);
    expect((await call(t.app, root, 'PUT', `/api/tenants/${tenant.tenantId}`, { name: '   ' })).body.errorCode).toBe('invalid_request');
    expect((await call(t.app, root, 'PUT', '/api/tenants/987654', { name: 'x' })).status).toBe(404);
  });

  it('renames a skill group; a name taken in the tenant is 409 duplicate_name', async () => {
    const tenant = await createTenant(t.app, root, 'Rename');
    const other = await createTenant(t.app, root, 'RenameOther');
    const sales = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'sales');
    await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'support');
    await createQueue(t.app, other.adminToken, other.tenantId, 'presales');

    const renamed = await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/skill-groups/${sales}`, { queue_name: 'presales' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.entity).toEqual({ queue_id: sales, queue_name: 'presales' });

    const taken = await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/skill-groups/${sales}`, { queue_name: 'support' });
    expect(taken.status).toBe(409);
    expect(taken.body.errorCode).toBe('duplicate_name');
    const groups = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/skill-groups`);
    expect(groups.body.entities.map((g: { queue_name: string }) => g.queue_name).sort()).toEqual(['default', 'presales', 'support']);

    expect((await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/skill-groups/987654`, { queue_name: 'x' })).status).toBe(404);
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [] });
    expect((await call(t.app, agent.token, 'PUT', `/api/tenants/${tenant.tenantId}/skill-groups/${sales}`, { queue_name: 'y' })).status).toBe(403);
  });

  it('refuses to delete a skill group while something holds it (409 in_use naming it), then deletes it', async () => {
    const tenant = await createTenant(t.app, root, 'DeleteGroup');
    const base = `/api/tenants/${tenant.tenantId}/skill-groups`;
    const isDefault = await call(t.app, tenant.adminToken, 'DELETE', `${base}/${tenant.defaultQueueId}`);
    expect(isDefault.status).toBe(409);
    expect(isDefault.body.errorCode).toBe('in_use');
    expect(isDefault.body.errorDescription).toContain("tenant's default skill group");

    const group = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'vip-desk');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [group] });
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook', { name: 'Desk bridge', agent_queue_id: group });
    const byAssociation = await call(t.app, tenant.adminToken, 'DELETE', `${base}/${group}`);
    expect(byAssociation.status).toBe(409);
    expect(byAssociation.body.errorDescription).toContain(`association ${assoc.channelId} (Desk bridge)`);

    await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/rest/channels/${assoc.channelId}`, { agent_queue_id: null });
    const waiting = await sendCustomerMessage(t.app, assoc, { from: 'c-1', ext: { queue_id: group } });
    const byConversation = await call(t.app, tenant.adminToken, 'DELETE', `${base}/${group}`);
    expect(byConversation.status).toBe(409);
    expect(byConversation.body.errorDescription).toContain('1 waiting or processing conversation');
    expect((await call(t.app, tenant.adminToken, 'GET', base)).body.total).toBe(2);

    expect((await call(t.app, tenant.adminToken, 'POST', `/api/tenants/${tenant.tenantId}/conversations/${waiting.conversation_id}/close`)).status).toBe(200);
    const deleted = await call(t.app, tenant.adminToken, 'DELETE', `${base}/${group}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.entity).toEqual({ deleted: true, queue_id: group });
    expect((await call(t.app, tenant.adminToken, 'GET', base)).body.total).toBe(1);
    const agents = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/agents`);
    expect(agents.body.entities.find((a: { id: number }) => a.id === agent.id).queue_ids).toEqual([]);
    expect((await call(t.app, tenant.adminToken, 'DELETE', `${base}/${group}`)).status).toBe(404);
  });

  it('lets an admin edit every field of an agent; an agent only their own nickname and avatar', async () => {
    const tenant = await createTenant(t.app, root, 'EditAgent');
    const group = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'g');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [] });
    const colleague = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [] });
    const url = `/api/tenants/${tenant.tenantId}/agents/${agent.id}`;

    const edited = await call(t.app, tenant.adminToken, 'PUT', url, { nickname: 'Alice W.', avatar: 'https://cdn.example.com/a.png', role: 'admin', queue_ids: [group, tenant.defaultQueueId], max_sessions: 8 });
    expect(edited.status).toBe(200);
    expect(edited.body.entity).toMatchObject({ id: agent.id, nickname: 'Alice W.', avatar: 'https://cdn.example.com/a.png', role: 'admin', max_sessions: 8 });
    expect(edited.body.entity.queue_ids).toEqual([tenant.defaultQueueId, group].sort((a, b) => Number(a) - Number(b)));
    await call(t.app, tenant.adminToken, 'PUT', url, { role: 'agent' });

    const own = await call(t.app, agent.token, 'PUT', url, { nickname: 'Ali', avatar: null });
    expect(own.status).toBe(200);
    expect(own.body.entity).toMatchObject({ nickname: 'Ali', avatar: null, role: 'agent' });
    const ownSessions = await call(t.app, agent.token, 'PUT', url, { max_sessions: 100 });
    expect(ownSessions.status).toBe(403);
    expect(ownSessions.body.errorDescription).toContain('max_sessions');
    expect((await call(t.app, agent.token, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${colleague.id}`, { nickname: 'x' })).status).toBe(403);

    const unknownQueue = await call(t.app, tenant.adminToken, 'PUT', url, { queue_ids: ['999999'] });
    expect(unknownQueue.status).toBe(400);
    expect(unknownQueue.body.errorDescription).toContain('queue_ids');
    expect((await call(t.app, tenant.adminToken, 'PUT', url, {})).status).toBe(400);
    expect((await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/agents/987654`, { nickname: 'x' })).status).toBe(404);
  });

  it('refuses an admin changing their own role (409 own_account)', async () => {
    const tenant = await createTenant(t.app, root, 'OwnRole');
    const admin = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [], role: 'admin' });
    const res = await call(t.app, admin.token, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${admin.id}`, { role: 'agent' });
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('own_account');
    expect((await call(t.app, admin.token, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${admin.id}`, { nickname: 'Boss' })).status).toBe(200);
  });

  it('hands waiting conversations to an online agent who is given a new skill group', async () => {
    const tenant = await createTenant(t.app, root, 'NewGroup');
    const group = await createQueue(t.app, tenant.adminToken, tenant.tenantId, 'night');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [], online: true });
    const sent = await sendCustomerMessage(t.app, assoc, { from: 'night-1', ext: { queue_id: group } });
    expect((await conversation(t.app, tenant.adminToken, tenant.tenantId, sent.conversation_id)).state).toBe('waiting');

    await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${agent.id}`, { queue_ids: [group] });
    const after = await conversation(t.app, tenant.adminToken, tenant.tenantId, sent.conversation_id);
    expect(after.state).toBe('processing');
    expect(after.agent.id).toBe(agent.id);
  });

  it('resets a password by an admin: the agent signs in with the new one and all their sessions end', async () => {
    const tenant = await createTenant(t.app, root, 'Reset');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [] });
    const reset = await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${agent.id}`, { password: 'brand-new-password' });
    expect(reset.status).toBe(200);
    expect((await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(401);
    expect((await call(t.app, undefined, 'POST', '/api/login', { username: agent.username, password: 'agent-password' })).status).toBe(401);
    const fresh = await login(t.app, agent.username, 'brand-new-password');
    expect((await call(t.app, fresh, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(200);
    expect((await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(200);
  });

  it('lets a user change their own password with the current one: other sessions end, this one stays', async () => {
    const tenant = await createTenant(t.app, root, 'OwnPassword');
    const agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [] });
    const other = await login(t.app, agent.username, 'agent-password');

    const wrong = await call(t.app, agent.token, 'PUT', '/api/me/password', { current_password: 'not-it-at-all', new_password: 'new-password-1' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errorCode).toBe('wrong_current_password');
    const short = await call(t.app, agent.token, 'PUT', '/api/me/password', { current_password: 'agent-password', new_password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.errorDescription).toContain('new_password');

    const changed = await call(t.app, agent.token, 'PUT', '/api/me/password', { current_password: 'agent-password', new_password: 'new-password-1' });
    expect(changed.status).toBe(200);
    expect(changed.body.entity).toEqual({ changed: true, revoked_tokens: 1 });
    expect((await call(t.app, other, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(401);
    expect((await call(t.app, agent.token, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(200);
    await login(t.app, agent.username, 'new-password-1');
    expect((await call(t.app, undefined, 'PUT', '/api/me/password', { current_password: 'x', new_password: 'new-password-2' })).status).toBe(401);
  });

  it('deletes an agent: their processing conversations wait again and are handed out, their sessions end', async () => {
    const tenant = await createTenant(t.app, root, 'DeleteAgent');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const leaving = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], online: true });
    const first = await sendCustomerMessage(t.app, assoc, { from: 'd-1' });
    const second = await sendCustomerMessage(t.app, assoc, { from: 'd-2' });
    for (const id of [first.conversation_id, second.conversation_id]) {
      expect((await conversation(t.app, tenant.adminToken, tenant.tenantId, id)).agent.id).toBe(leaving.id);
    }
    const staying = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId] });

    expect((await call(t.app, leaving.token, 'DELETE', `/api/tenants/${tenant.tenantId}/agents/${staying.id}`)).status).toBe(403);
    const deleted = await call(t.app, tenant.adminToken, 'DELETE', `/api/tenants/${tenant.tenantId}/agents/${leaving.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.entity).toEqual({ deleted: true, id: leaving.id, requeued_conversations: 2 });
    for (const id of [first.conversation_id, second.conversation_id]) {
      const c = await conversation(t.app, tenant.adminToken, tenant.tenantId, id);
      expect(c).toMatchObject({ state: 'waiting', agent: null, queue_id: tenant.defaultQueueId });
    }
    expect((await call(t.app, leaving.token, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(401);
    const agents = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/agents`);
    expect(agents.body.entities.map((a: { id: number }) => a.id)).not.toContain(leaving.id);

    await setStatus(t.app, tenant.tenantId, staying, 'online');
    for (const id of [first.conversation_id, second.conversation_id]) {
      expect((await conversation(t.app, tenant.adminToken, tenant.tenantId, id)).agent.id).toBe(staying.id);
    }
    expect((await call(t.app, tenant.adminToken, 'DELETE', `/api/tenants/${tenant.tenantId}/agents/${leaving.id}`)).status).toBe(404);
  });

  it('hands a deleted agent conversations to an online colleague with room at once', async () => {
    const tenant = await createTenant(t.app, root, 'DeleteDispatch');
    const assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
    const leaving = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], online: true });
    const sent = await sendCustomerMessage(t.app, assoc, { from: 'e-1' });
    const colleague = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], online: true });
    await call(t.app, tenant.adminToken, 'DELETE', `/api/tenants/${tenant.tenantId}/agents/${leaving.id}`);
    const c = await conversation(t.app, tenant.adminToken, tenant.tenantId, sent.conversation_id);
    expect(c.state).toBe('processing');
    expect(c.agent.id).toBe(colleague.id);
  });

  it('refuses an admin deleting their own account (409 own_account)', async () => {
    const tenant = await createTenant(t.app, root, 'DeleteSelf');
    const me = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/agents`);
    const adminId = me.body.entities[0].id as number;
    const res = await call(t.app, tenant.adminToken, 'DELETE', `/api/tenants/${tenant.tenantId}/agents/${adminId}`);
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('own_account');
    expect((await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}`)).status).toBe(200);
  });
});
