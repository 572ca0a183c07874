import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntities, ApiEntity, OperationsWebhookOrNone, OperationsWebhookRequest, OperationsWebhookView, OperatorEventsQuery, OperatorEventView, TenantParams } from '@parley/protocol';
import { assertTenantAccess, type AccountsService } from '../../../modules/accounts/service.js';
import type { OperatorOwner } from '../../../modules/operations/ports.js';
import type { OperationsService } from '../../../modules/operations/service.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

const tags = ['operations'];
const path = '/api/tenants/:tenantId/operations';
const errors = apiErrors(400, 401, 403, 404, 429);
const RESOURCE = 'Operations webhook';

/**
 * The tenant's operations webhook and its operator events (contract 6.7), for the tenant's
 * administrators; answers in the /api envelope.
 */
export const operationsRoutes: FastifyPluginAsyncTypebox<{ operations: OperationsService; accounts: AccountsService }> = async (app, { operations, accounts }) => {
  /** The tenant after the caller's access to it is checked (404 for an unknown tenant). */
  const ownerOf = async (request: { params: { tenantId: number } }, principal: Parameters<typeof assertTenantAccess>[0]): Promise<OperatorOwner> => {
    const { tenantId } = request.params;
    assertTenantAccess(principal, tenantId, ['admin']);
    await accounts.requireTenant(tenantId);
    return { scope: 'tenant', id: String(tenantId) };
  };
  const put = {
    tags,
    security: API_BEARER,
    summary: "Set the tenant's operations webhook: delivery.exhausted is sent to it, signed (Standard Webhooks)",
    description: 'Without `secret` one is generated. The answer holds the secret in force; it is never shown again. The URL is refused (400 `invalid_callback_url`) when it resolves to an internal address, unless private callbacks are allowed.',
    params: TenantParams,
    body: OperationsWebhookRequest,
    response: { 200: ApiEntity(OperationsWebhookView), ...errors },
  };
  app.put(path, { schema: put }, async (request) => ok(await operations.put(await ownerOf(request, principalOf(request)), request.body)));
  const get = {
    tags,
    security: API_BEARER,
    summary: "Read the tenant's operations webhook, without its secret (null: none is set)",
    params: TenantParams,
    response: { 200: ApiEntity(OperationsWebhookOrNone), ...errors },
  };
  app.get(path, { schema: get }, async (request) => ok(await operations.get(await ownerOf(request, principalOf(request)))));
  const del = { tags, security: API_BEARER, summary: "Remove the tenant's operations webhook (answers it as it was)", params: TenantParams, response: { 200: ApiEntity(OperationsWebhookView), ...errors } };
  app.delete(path, { schema: del }, async (request) => ok(await operations.delete(await ownerOf(request, principalOf(request)), RESOURCE)));
  const events = {
    tags,
    security: API_BEARER,
    summary: "The tenant's latest operator events, newest first, with how their sending went (the console's notices)",
    params: TenantParams,
    querystring: OperatorEventsQuery,
    response: { 200: ApiEntities(OperatorEventView), ...errors },
  };
  app.get(`${path}/events`, { schema: events }, async (request) => list(await operations.recent(await ownerOf(request, principalOf(request)), request.query.limit)));
};
