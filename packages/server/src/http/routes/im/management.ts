import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppCreated, CreateAppRequest, ImEnvelope } from '@parley/protocol';
import { API_BEARER, imErrors } from '../../openapi.js';
import { AppError } from '../../../kernel/errors.js';
import type { AccountsService } from '../../../modules/accounts/service.js';
import type { ImAppsService } from '../../../modules/im/apps.js';
import { imData } from '../../../modules/im/envelope.js';
import { requestToken } from '../../plugins/bearer.js';

/** `POST /management/apps` (contract 4.1): the console's system admin creates IM apps. */
export const imManagementRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService; apps: ImAppsService }> = async (app, { accounts, apps }) => {
  app.post(
    '/management/apps',
    {
      schema: {
        tags: ['im'],
        summary: 'Create an IM app (console system-admin bearer token or session cookie)',
        security: API_BEARER,
        body: CreateAppRequest,
        response: { 200: ImEnvelope(AppCreated), ...imErrors(400, 401, 403) },
      },
    },
    async (request) => {
      const token = requestToken(request);
      const principal = token ? await accounts.authenticate(token) : undefined;
      if (!principal) throw new AppError('unauthorized');
      if (principal.role !== 'system_admin') throw new AppError('forbidden', { detail: 'creating IM apps requires the system admin' });
      const { app: created, created: view } = await apps.createApp(request.body.org_name, request.body.app_name);
      const envelope = imData(request, { id: created.id, orgName: created.orgName, appName: created.appName }, view);
      return { ...envelope, path: '/management/apps' };
    },
  );
};
