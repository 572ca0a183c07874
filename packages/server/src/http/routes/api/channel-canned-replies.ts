import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntities, ApiEntity, CannedReplyParams, CannedReplyRequest, CannedReplyUpdate, CannedReplyView, TenantParams } from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

const tags = ['canned-replies'];
const ROLES = ['admin', 'agent'] as const;
const security = API_BEARER;
const base = '/api/tenants/:tenantId/canned-replies';

/** Contract 6.4: canned replies, the tenant's (admins write them) and each agent's own. */
export const cannedReplyRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  const tools = channel.tools;
  app.post(
    base,
    {
      schema: {
        tags,
        security,
        summary: 'Create a canned reply: `scope` `tenant` (tenant admin) or `personal` (your own)',
        description: 'Shortcuts are unique per owner (the tenant, or you): 409 `duplicate_name`.',
        params: TenantParams,
        body: CannedReplyRequest,
        response: { 200: ApiEntity(CannedReplyView), ...apiErrors(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await tools.createCanned(request.params.tenantId, principal, request.body));
    },
  );

  app.get(
    base,
    { schema: { tags, security, summary: "The tenant's canned replies and your own, by shortcut", params: TenantParams, response: { 200: ApiEntities(CannedReplyView), ...apiErrors(400, 401, 403, 429) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return list(await tools.listCanned(request.params.tenantId, principal));
    },
  );

  app.get(
    `${base}/:id`,
    { schema: { tags, security, summary: 'Read a canned reply (another agent\'s own: 404)', params: CannedReplyParams, response: { 200: ApiEntity(CannedReplyView), ...apiErrors(400, 401, 403, 404, 429) } } },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await tools.getCanned(request.params.tenantId, request.params.id, principal));
    },
  );

  app.put(
    `${base}/:id`,
    {
      schema: {
        tags,
        security,
        summary: "Change a canned reply's shortcut or text (the tenant's: tenant admin)",
        params: CannedReplyParams,
        body: CannedReplyUpdate,
        response: { 200: ApiEntity(CannedReplyView), ...apiErrors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      return ok(await tools.updateCanned(request.params.tenantId, request.params.id, principal, request.body));
    },
  );

  deleteRoute(app, tools);
};

function deleteRoute(app: Parameters<FastifyPluginAsyncTypebox>[0], tools: ChannelModule['tools']): void {
  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        security,
        'x-no-body': true,
        summary: "Delete a canned reply (the tenant's: tenant admin)",
        params: CannedReplyParams,
        response: { 200: ApiEntity(Type.Object({ deleted: Type.Boolean() }, { examples: [{ deleted: true }] })), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      assertTenantAccess(principal, request.params.tenantId, ROLES);
      await tools.deleteCanned(request.params.tenantId, request.params.id, principal);
      return ok({ deleted: true });
    },
  );
}
