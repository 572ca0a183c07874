/**
 * Editing and deleting on the accounts surface (contract 6.3): a tenant's name and edition,
 * skill-group rename and delete, agent edit and delete, a user's own password change.
 * The decisions are in modules/accounts/admin.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AgentDeleted,
  AgentParams,
  AgentView,
  ApiEntity,
  ChangePasswordRequest,
  PasswordChanged,
  SkillGroupDeleted,
  SkillGroupParams,
  SkillGroupView,
  TenantParams,
  TenantView,
  UpdateAgentRequest,
  UpdateSkillGroupRequest,
  UpdateTenantRequest,
} from '@parley/protocol';
import { assertRole, assertTenantAccess, type AccountsService } from '../../../modules/accounts/service.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { principalOf } from '../../plugins/bearer.js';
import { requestToken } from '../../plugins/session-cookie.js';
import { ok } from './envelope.js';

type ApiApp = Parameters<FastifyPluginAsyncTypebox>[0];

const bearer = API_BEARER;
const tags = ['accounts'];

const EXAMPLE_AGENT = { id: 12, username: 'alice@acme.com', nickname: 'Alice W.', avatar: null, role: 'agent', queue_ids: ['2', '5'], max_sessions: 8, status: 'online' };

export function accountsAdminRoutes(app: ApiApp, accounts: AccountsService): void {
  tenantEditRoutes(app, accounts);
  skillGroupEditRoutes(app, accounts);
  agentEditRoutes(app, accounts);
}

function tenantEditRoutes(app: ApiApp, accounts: AccountsService): void {
  const example = { status: 'OK', entity: { tenantId: 3, name: 'Acme support', edition: 'standard', defaultQueueId: '7', vipTags: ['vip'], createDateTime: 1_767_225_600_000 } };
  app.put(
    '/api/tenants/:tenantId',
    {
      schema: {
        tags,
        summary: "Change a tenant's name or edition (system admin); a standard tenant's associations refuse messages with 403 edition_not_supported",
        security: bearer,
        params: TenantParams,
        body: UpdateTenantRequest,
        response: { 200: ApiEntity(TenantView, { examples: [example] }), ...apiErrors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      assertRole(principalOf(request), ['system_admin']);
      return ok(await accounts.admin.updateTenant(request.params.tenantId, request.body));
    },
  );

  app.put(
    '/api/me/password',
    {
      schema: {
        tags,
        summary: "Change one's own password (current password required); the user's other sessions are signed out",
        security: bearer,
        body: ChangePasswordRequest,
        response: { 200: ApiEntity(PasswordChanged, { examples: [{ status: 'OK', entity: { changed: true, revoked_tokens: 2 } }] }), ...apiErrors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { current_password, new_password } = request.body;
      return ok(await accounts.admin.changeOwnPassword(principalOf(request), current_password, new_password, request.clientAddress, requestToken(request)));
    },
  );
}

function skillGroupEditRoutes(app: ApiApp, accounts: AccountsService): void {
  app.put(
    '/api/tenants/:tenantId/skill-groups/:queueId',
    {
      schema: {
        tags,
        summary: 'Rename a skill group (tenant admin); names are unique per tenant (409 duplicate_name)',
        security: bearer,
        params: SkillGroupParams,
        body: UpdateSkillGroupRequest,
        response: { 200: ApiEntity(SkillGroupView, { examples: [{ status: 'OK', entity: { queue_id: '5', queue_name: 'After-sales' } }] }), ...apiErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { tenantId, queueId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ['admin']);
      return ok(await accounts.admin.renameSkillGroup(tenantId, queueId, request.body.queue_name));
    },
  );

  app.delete(
    '/api/tenants/:tenantId/skill-groups/:queueId',
    {
      schema: {
        tags,
        summary: "Delete a skill group (tenant admin); 409 in_use while it is the tenant's default, an association's default queue, or has waiting or processing conversations",
        security: bearer,
        params: SkillGroupParams,
        response: { 200: ApiEntity(SkillGroupDeleted, { examples: [{ status: 'OK', entity: { deleted: true, queue_id: '5' } }] }), ...apiErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { tenantId, queueId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ['admin']);
      await accounts.admin.deleteSkillGroup(tenantId, queueId);
      return ok({ deleted: true as const, queue_id: String(queueId) });
    },
  );
}

function agentEditRoutes(app: ApiApp, accounts: AccountsService): void {
  app.put(
    '/api/tenants/:tenantId/agents/:agentId',
    {
      schema: {
        tags,
        summary: 'Edit an agent or tenant admin (tenant admin: every field, password reset included; an agent: their own nickname and avatar)',
        security: bearer,
        params: AgentParams,
        body: UpdateAgentRequest,
        response: { 200: ApiEntity(AgentView, { examples: [{ status: 'OK', entity: EXAMPLE_AGENT }] }), ...apiErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tenantId, agentId } = request.params;
      assertTenantAccess(principal, tenantId, ['admin', 'agent']);
      return ok(await accounts.admin.updateAgent(tenantId, agentId, principal, request.body, requestToken(request)));
    },
  );

  app.delete(
    '/api/tenants/:tenantId/agents/:agentId',
    {
      schema: {
        tags,
        summary: 'Delete an agent or tenant admin (tenant admin): their processing conversations wait in their queues again, their sessions end; 409 own_account for oneself',
        security: bearer,
        params: AgentParams,
        response: { 200: ApiEntity(AgentDeleted, { examples: [{ status: 'OK', entity: { deleted: true, id: 12, requeued_conversations: 3 } }] }), ...apiErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tenantId, agentId } = request.params;
      assertTenantAccess(principal, tenantId, ['admin']);
      return ok(await accounts.admin.deleteAgent(tenantId, agentId, principal));
    },
  );
}
