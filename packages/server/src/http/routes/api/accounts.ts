import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AgentParams,
  AgentView,
  ApiEntities,
  ApiEntity,
  CreateAgentRequest,
  CreateSkillGroupRequest,
  CreateTenantRequest,
  LoginRequest,
  LoginResult,
  SetAgentStatusRequest,
  SkillGroupView,
  TenantParams,
  TenantView,
  UpdateTenantSettingsRequest,
} from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { assertRole, assertTenantAccess, type AccountsService } from '../../../modules/accounts/service.js';
import { tooMany } from '../../auth-failures.js';
import type { FixedWindowLimiter } from '../../fixed-window.js';
import { principalOf } from '../../plugins/bearer.js';
import { clearSessionCookie, requestToken, setSessionCookie } from '../../plugins/session-cookie.js';
import { API_BEARER, apiErrors, PUBLIC } from '../../openapi.js';
import { accountsAdminRoutes } from './accounts-admin.js';
import { list, ok } from './envelope.js';

/**
 * Login names are global (a login e-mail names one person, and login takes no tenant), so a
 * tenant admin who picks a taken name learns that it is taken. The answer is the same 409 whoever
 * holds the name (this tenant, another, the system admin) and says nothing of where; and each
 * tenant gets at most TAKEN_NAMES_PER_HOUR such answers an hour: past them, creating agents is
 * refused with 429 until the hour ends, whatever the name, so the refusal tells nothing either.
 */
export const TAKEN_NAMES_PER_HOUR = 10;
export const TAKEN_NAMES_WINDOW_MS = 3_600_000;

export interface AccountsRoutesOptions {
  accounts: AccountsService;
  /** Taken-name answers per tenant (TAKEN_NAMES_PER_HOUR in TAKEN_NAMES_WINDOW_MS). */
  takenNames: FixedWindowLimiter;
}

const isTakenName = (error: unknown) => error instanceof AppError && error.code === 'conflict' && error.params.resource === 'User';

/** The Fastify instance with TypeBox typing, as the plugin receives it. */
type ApiApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Contract section 2 (login, tenants, skill groups, agents) and their editing (6.3, accounts-admin.ts). */
export const accountsRoutes: FastifyPluginAsyncTypebox<AccountsRoutesOptions> = async (app, { accounts, takenNames }) => {
  sessionRoutes(app, accounts);
  tenantRoutes(app, accounts);
  skillGroupRoutes(app, accounts);
  agentRoutes(app, accounts, takenNames);
  accountsAdminRoutes(app, accounts);
};

/** Sign-in and sign-out: a bearer token for integrators, the session cookie for the console. */
function sessionRoutes(app: ApiApp, accounts: AccountsService): void {
  app.post(
    '/api/login',
    {
      config: { public: true },
      schema: { tags: ['accounts'], summary: 'Sign in and get a bearer token', security: PUBLIC, body: LoginRequest, response: { 200: ApiEntity(LoginResult), ...apiErrors(400, 401, 429) } },
    },
    async (request, reply) => {
      const result = await accounts.login(request.body.username, request.body.password, request.clientAddress);
      // The console signs in through the HttpOnly cookie; integrators use the returned token.
      setSessionCookie(request, reply, result.access_token, result.expires_in);
      return ok(result);
    },
  );

  app.post(
    '/api/logout',
    {
      // Public so that a session whose token already expired still gets its cookie cleared.
      config: { public: true },
      schema: {
        tags: ['accounts'],
        summary: 'Sign out: revoke the token (bearer or session cookie) and clear the cookie',
        security: PUBLIC,
        'x-no-body': true,
        response: { 200: ApiEntity(Type.Object({ signed_out: Type.Boolean() }, { examples: [{ signed_out: true }] })), ...apiErrors(429) },
      },
    },
    async (request, reply) => {
      const token = requestToken(request);
      if (token) await accounts.revokeToken(token);
      clearSessionCookie(request, reply);
      return ok({ signed_out: true });
    },
  );
}

/** Tenants: created and listed by the system admin, read and configured by their own users. */
function tenantRoutes(app: ApiApp, accounts: AccountsService): void {
  app.post(
    '/api/tenants',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Create a tenant with its first admin (system admin)',
        security: API_BEARER,
        body: CreateTenantRequest,
        response: { 200: ApiEntity(TenantView), ...apiErrors(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      assertRole(principalOf(request), ['system_admin']);
      return ok(await accounts.createTenant(request.body));
    },
  );

  app.get(
    '/api/tenants',
    { schema: { tags: ['accounts'], summary: 'List tenants (system admin)', security: API_BEARER, response: { 200: ApiEntities(TenantView), ...apiErrors(401, 403, 429) } } },
    async (request) => {
      assertRole(principalOf(request), ['system_admin']);
      return list(await accounts.listTenants());
    },
  );

  app.get(
    '/api/tenants/:tenantId',
    { schema: { tags: ['accounts'], summary: 'Read a tenant', security: API_BEARER, params: TenantParams, response: { 200: ApiEntity(TenantView), ...apiErrors(400, 401, 403, 404, 429) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin', 'agent']);
      return ok(await accounts.getTenant(request.params.tenantId));
    },
  );

  app.put(
    '/api/tenants/:tenantId/settings',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Change tenant settings (VIP tags)',
        security: API_BEARER,
        params: TenantParams,
        body: UpdateTenantSettingsRequest,
        response: { 200: ApiEntity(TenantView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await accounts.setVipTags(request.params.tenantId, request.body.vip_tags));
    },
  );
}

/** Skill groups (queues) of a tenant. */
function skillGroupRoutes(app: ApiApp, accounts: AccountsService): void {
  app.post(
    '/api/tenants/:tenantId/skill-groups',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Create a skill group',
        security: API_BEARER,
        params: TenantParams,
        body: CreateSkillGroupRequest,
        response: { 200: ApiEntity(SkillGroupView), ...apiErrors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await accounts.createSkillGroup(request.params.tenantId, request.body.queue_name));
    },
  );

  app.get(
    '/api/tenants/:tenantId/skill-groups',
    { schema: { tags: ['accounts'], summary: 'List skill groups', security: API_BEARER, params: TenantParams, response: { 200: ApiEntities(SkillGroupView), ...apiErrors(400, 401, 403, 404, 429) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin', 'agent']);
      return list(await accounts.listSkillGroups(request.params.tenantId));
    },
  );
}

/** Agents and tenant admins of a tenant: creation (under the taken-name budget), listing, status. */
function agentRoutes(app: ApiApp, accounts: AccountsService, takenNames: FixedWindowLimiter): void {
  app.post(
    '/api/tenants/:tenantId/agents',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Create an agent or tenant admin',
        security: API_BEARER,
        params: TenantParams,
        body: CreateAgentRequest,
        response: { 200: ApiEntity(AgentView), ...apiErrors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tenantId } = request.params;
      assertTenantAccess(principal, tenantId, ['admin']);
      // The system admin sees every account anyway; tenant admins are held to the budget.
      const budgeted = principal.role !== 'system_admin';
      const wait = budgeted ? await takenNames.peek(String(tenantId)) : 0;
      if (wait > 0) throw tooMany('rate_limited', wait);
      try {
        return ok(await accounts.createAgent(tenantId, request.body));
      } catch (error) {
        if (budgeted && isTakenName(error)) await takenNames.take(String(tenantId));
        throw error;
      }
    },
  );

  app.get(
    '/api/tenants/:tenantId/agents',
    { schema: { tags: ['accounts'], summary: 'List agents', security: API_BEARER, params: TenantParams, response: { 200: ApiEntities(AgentView), ...apiErrors(400, 401, 403, 404, 429) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin', 'agent']);
      return list(await accounts.listAgents(request.params.tenantId));
    },
  );

  app.put(
    '/api/tenants/:tenantId/agents/:agentId/status',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Set an agent status (the agent, or a tenant admin)',
        security: API_BEARER,
        params: AgentParams,
        body: SetAgentStatusRequest,
        response: { 200: ApiEntity(AgentView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tenantId, agentId } = request.params;
      assertTenantAccess(principal, tenantId, ['admin', 'agent']);
      if (principal.role === 'agent' && principal.userId !== agentId) {
        throw new AppError('forbidden', { detail: 'agents set their own status only' });
      }
      return ok(await accounts.setAgentStatus(tenantId, agentId, request.body.status));
    },
  );
}
