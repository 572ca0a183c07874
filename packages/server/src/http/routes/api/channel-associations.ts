import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiEntities,
  ApiEntity,
  AssociationView,
  ChannelParams,
  CreateAssociationRequest,
  DeliveryParams,
  DeliveryQuery,
  DeliveryView,
  RotateSecretRequest,
  TenantParams,
  UpdateAssociationRequest,
} from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { absentBodyAsEmpty } from '../../optional-body.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { list, ok } from './envelope.js';

type TypeboxApp = Parameters<FastifyPluginAsyncTypebox>[0];

const tags = ['rest-channel'];
const security = API_BEARER;
const errors = apiErrors(400, 401, 403, 404, 429);

/** Contract 3.1: REST associations and their delivery logs (tenant admins). */
export const channelAssociationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  const { associations, deliveries } = channel;
  const base = '/api/tenants/:tenantId/rest/channels';

  app.post(
    base,
    { schema: { tags, summary: 'Create a REST association', security, params: TenantParams, body: CreateAssociationRequest, response: { 200: ApiEntity(AssociationView), ...errors, ...apiErrors(409) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.create(request.params.tenantId, request.body));
    },
  );

  app.get(base, { schema: { tags, summary: 'List REST associations', security, params: TenantParams, response: { 200: ApiEntities(AssociationView), ...errors } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
    return list(await associations.list(request.params.tenantId));
  });

  app.get(`${base}/:channelId`, { schema: { tags, summary: 'Read a REST association', security, params: ChannelParams, response: { 200: ApiEntity(AssociationView), ...errors } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
    return ok(await associations.get(request.params.tenantId, request.params.channelId));
  });

  app.put(
    `${base}/:channelId`,
    { schema: { tags, summary: 'Change a REST association', security, params: ChannelParams, body: UpdateAssociationRequest, response: { 200: ApiEntity(AssociationView), ...errors, ...apiErrors(409) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.update(request.params.tenantId, request.params.channelId, request.body));
    },
  );

  app.delete(
    `${base}/:channelId`,
    {
      schema: {
        tags,
        summary: 'Delete a REST association',
        security,
        params: ChannelParams,
        response: { 200: ApiEntity(Type.Object({ channelId: Type.Integer(), deleted: Type.Boolean() }, { examples: [{ channelId: 7, deleted: true }] })), ...errors },
      },
    },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      await associations.delete(request.params.tenantId, request.params.channelId);
      return ok({ channelId: request.params.channelId, deleted: true });
    },
  );

  secretRoutes(app, associations, base);

  app.get(
    `${base}/:channelId/deliveries`,
    { schema: { tags, summary: 'Agent-reply pushes with their attempts', security, params: ChannelParams, querystring: DeliveryQuery, response: { 200: ApiEntities(DeliveryView), ...errors } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return list(await deliveries.list(request.params.tenantId, request.params.channelId, request.query.status));
    },
  );

  app.post(
    `${base}/:channelId/deliveries/:deliveryId/redeliver`,
    { schema: { tags, summary: 'Queue a push again (same webhook-id)', security, 'x-no-body': true, params: DeliveryParams, response: { 200: ApiEntity(DeliveryView), ...errors, ...apiErrors(409) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await deliveries.redeliver(request.params.tenantId, request.params.channelId, request.params.deliveryId));
    },
  );
};

/** Contract 6.6: rotate the Client Secret with an overlap, and end the overlap early. */
function secretRoutes(app: TypeboxApp, associations: ChannelModule['associations'], base: string): void {
  app.post(
    `${base}/:channelId/secret`,
    {
      preValidation: absentBodyAsEmpty,
      schema: {
        tags,
        summary: 'Rotate the Client Secret; the previous one keeps working for overlap_seconds (default 86400)',
        security,
        params: ChannelParams,
        body: RotateSecretRequest,
        response: { 200: ApiEntity(AssociationView), ...errors },
      },
    },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.rotateSecret(request.params.tenantId, request.params.channelId, request.body.overlap_seconds));
    },
  );

  app.delete(
    `${base}/:channelId/secret/previous`,
    { schema: { tags, summary: "End a rotation's overlap: only the current Client Secret works", security, params: ChannelParams, response: { 200: ApiEntity(AssociationView), ...errors } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.endOverlap(request.params.tenantId, request.params.channelId));
    },
  );
}
