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
  TenantParams,
  UpdateAssociationRequest,
} from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { list, ok } from './envelope.js';

const tags = ['rest-channel'];

/** Contract 3.1: REST associations and their delivery logs (tenant admins). */
export const channelAssociationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  const { associations, deliveries } = channel;
  const base = '/api/tenants/:tenantId/rest/channels';

  app.post(
    base,
    { schema: { tags, summary: 'Create a REST association', params: TenantParams, body: CreateAssociationRequest, response: { 200: ApiEntity(AssociationView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.create(request.params.tenantId, request.body));
    },
  );

  app.get(base, { schema: { tags, summary: 'List REST associations', params: TenantParams, response: { 200: ApiEntities(AssociationView) } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
    return list(await associations.list(request.params.tenantId));
  });

  app.get(`${base}/:channelId`, { schema: { tags, summary: 'Read a REST association', params: ChannelParams, response: { 200: ApiEntity(AssociationView) } } }, async (request) => {
    assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
    return ok(await associations.get(request.params.tenantId, request.params.channelId));
  });

  app.put(
    `${base}/:channelId`,
    { schema: { tags, summary: 'Change a REST association', params: ChannelParams, body: UpdateAssociationRequest, response: { 200: ApiEntity(AssociationView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.update(request.params.tenantId, request.params.channelId, request.body));
    },
  );

  app.delete(
    `${base}/:channelId`,
    { schema: { tags, summary: 'Delete a REST association', params: ChannelParams, response: { 200: ApiEntity(Type.Object({ channelId: Type.Integer(), deleted: Type.Boolean() })) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      await associations.delete(request.params.tenantId, request.params.channelId);
      return ok({ channelId: request.params.channelId, deleted: true });
    },
  );

  app.post(
    `${base}/:channelId/secret`,
    { schema: { tags, summary: 'Rotate the Client Secret (the old one stops working)', params: ChannelParams, response: { 200: ApiEntity(AssociationView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await associations.rotateSecret(request.params.tenantId, request.params.channelId));
    },
  );

  app.get(
    `${base}/:channelId/deliveries`,
    { schema: { tags, summary: 'Agent-reply pushes with their attempts', params: ChannelParams, querystring: DeliveryQuery, response: { 200: ApiEntities(DeliveryView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return list(await deliveries.list(request.params.tenantId, request.params.channelId, request.query.status));
    },
  );

  app.post(
    `${base}/:channelId/deliveries/:deliveryId/redeliver`,
    { schema: { tags, summary: 'Queue a push again (same webhook-id)', params: DeliveryParams, response: { 200: ApiEntity(DeliveryView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin']);
      return ok(await deliveries.redeliver(request.params.tenantId, request.params.channelId, request.params.deliveryId));
    },
  );
};
