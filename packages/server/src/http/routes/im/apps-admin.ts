/**
 * The system admin's view of IM apps (contract 6.2): the list with client ids (never a secret),
 * a new client secret, and an app-admin token for the console (so opening an app needs no
 * secret). Authenticated as `POST /management/apps`: the console's system-admin bearer token or
 * session cookie.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppCreated, AppList, AppPathParams, AppTokenResult, ImDataOf, RotateSecretRequest } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import type { AccountsService } from '../../../modules/accounts/service.js';
import type { ImAppsService } from '../../../modules/im/apps.js';
import { imData, imManagementEntities } from '../../../modules/im/envelope.js';
import { absentBodyAsEmpty } from '../../optional-body.js';
import { requestToken } from '../../plugins/bearer.js';
import { API_BEARER, imErrors } from '../../openapi.js';

async function requireSystemAdmin(request: FastifyRequest, accounts: AccountsService, what: string): Promise<void> {
  const token = requestToken(request);
  const principal = token ? await accounts.authenticate(token) : undefined;
  if (!principal) throw new AppError('unauthorized');
  if (principal.role !== 'system_admin') throw new AppError('forbidden', { detail: `${what} requires the system admin` });
}

const SecretRotated = ImDataOf(AppCreated, {
  examples: [
    {
      path: '/management/apps/acme/shop/secret',
      uri: 'http://127.0.0.1:8080/management/apps/acme/shop/secret',
      timestamp: 1764000000000,
      organization: 'acme',
      application: '8be024f0-0000-4000-8000-5d598d5f8402',
      action: 'post',
      duration: 2,
      applicationName: 'shop',
      data: { appkey: 'acme#shop', application: '8be024f0-0000-4000-8000-5d598d5f8402', client_id: 'YXA6c2VjcmV0LWNsaWVudC1pZA', client_secret: '4f1c0d8e0b6a4d2c9e7f3a1b5c6d7e8f9a0b1c2d3e4f5a6b' },
    },
  ],
});

const OverlapEnded = ImDataOf(Type.Object({ appkey: Type.String(), application: Type.String(), client_id: Type.String() }), {
  examples: [
    {
      path: '/management/apps/acme/shop/secret/previous',
      uri: 'http://127.0.0.1:8080/management/apps/acme/shop/secret/previous',
      timestamp: 1764000000000,
      organization: 'acme',
      application: '8be024f0-0000-4000-8000-5d598d5f8402',
      action: 'delete',
      duration: 2,
      applicationName: 'shop',
      data: { appkey: 'acme#shop', application: '8be024f0-0000-4000-8000-5d598d5f8402', client_id: 'YXA6c2VjcmV0LWNsaWVudC1pZA' },
    },
  ],
});

const ConsoleToken = ImDataOf(AppTokenResult, {
  examples: [
    {
      path: '/management/apps/acme/shop/token',
      uri: 'http://127.0.0.1:8080/management/apps/acme/shop/token',
      timestamp: 1764000000000,
      organization: 'acme',
      application: '8be024f0-0000-4000-8000-5d598d5f8402',
      action: 'post',
      duration: 1,
      applicationName: 'shop',
      data: { access_token: 'YWMtc2VjcmV0LXRva2VuLWV4YW1wbGU', expires_in: 3600, application: '8be024f0-0000-4000-8000-5d598d5f8402' },
    },
  ],
});

export const imAppAdminRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService; apps: ImAppsService }> = async (app, { accounts, apps }) => {
  app.get(
    '/management/apps',
    {
      schema: {
        tags: ['im'],
        summary: 'List IM apps with their app keys and client ids (system admin)',
        security: API_BEARER,
        response: { 200: AppList, ...imErrors(401, 403) },
      },
    },
    async (request) => {
      await requireSystemAdmin(request, accounts, 'listing IM apps');
      return imManagementEntities(request, await apps.listApps());
    },
  );

  app.post(
    '/management/apps/:org/:app/secret',
    {
      schema: {
        tags: ['im'],
        summary: 'Issue a new client secret, shown once; the old one still grants tokens for overlap_seconds (default 86400) (system admin)',
        description: 'Tokens issued before keep working until they expire. `DELETE …/secret/previous` ends the overlap early.',
        security: API_BEARER,
        params: AppPathParams,
        body: RotateSecretRequest,
        response: { 200: SecretRotated, ...imErrors(400, 401, 403, 404) },
      },
      preValidation: absentBodyAsEmpty,
    },
    async (request) => {
      await requireSystemAdmin(request, accounts, 'rotating an IM app secret');
      const { app: rotated, created } = await apps.rotateSecret(request.params.org, request.params.app, request.body.overlap_seconds);
      return imData(request, { id: rotated.id, orgName: rotated.orgName, appName: rotated.appName }, created);
    },
  );

  app.delete(
    '/management/apps/:org/:app/secret/previous',
    {
      schema: {
        tags: ['im'],
        summary: "End a client secret rotation's overlap: only the current secret grants tokens (system admin)",
        security: API_BEARER,
        params: AppPathParams,
        response: { 200: OverlapEnded, ...imErrors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await requireSystemAdmin(request, accounts, 'ending an IM app secret overlap');
      const app = await apps.endSecretOverlap(request.params.org, request.params.app);
      return imData(request, { id: app.id, orgName: app.orgName, appName: app.appName }, { appkey: app.appkey, application: app.id, client_id: app.clientId });
    },
  );

  app.post(
    '/management/apps/:org/:app/token',
    {
      schema: {
        tags: ['im'],
        summary: "An app-admin token for the console's system admin, without the client secret (system admin)",
        description: 'The token lasts one hour (or the app token TTL when shorter), like any app-admin token: it is not revoked when the console session ends.',
        security: API_BEARER,
        'x-no-body': true,
        params: AppPathParams,
        response: { 200: ConsoleToken, ...imErrors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await requireSystemAdmin(request, accounts, 'opening an IM app from the console');
      const { app: opened, token } = await apps.consoleToken(request.params.org, request.params.app);
      return imData(request, { id: opened.id, orgName: opened.orgName, appName: opened.appName }, token);
    },
  );
};
