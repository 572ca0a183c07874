import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreateUsersRequest,
  ImEntitiesEnvelope,
  ImEnvelope,
  ImUserView,
  OfflineCount,
  OfflineStatus,
  OfflineStatusParams,
  TokenRequest,
  TokenResult,
  UsernameParams,
} from '@parley/protocol';
import { AppError } from '../../../kernel/errors.js';
import { imData, imEntities } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { foldUsername, imUserView } from '../../../modules/im/users.js';
import { noteFailure, type GuardedLimits } from '../../auth-failures.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors, PUBLIC } from '../../openapi.js';
import { chargeApp, imAppOf, isCredentialFailure } from './context.js';

const tags = ['im'];
const security = IM_TOKEN;
const errors = imErrors(...IM_ADMIN_ERRORS);

/** The Fastify instance with TypeBox typing, as the plugin receives it. */
type ImApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Tokens and users (contract 4.1), offline counters (4.3). */
export const imUserRoutes: FastifyPluginAsyncTypebox<{ im: ImModule; limits: GuardedLimits }> = async (app, { im, limits }) => {
  tokenRoute(app, im, limits);
  userRoutes(app, im);
  offlineRoutes(app, im);
};

/** `POST /token`: public; it checks its own credentials and charges the app once they hold. */
function tokenRoute(app: ImApp, im: ImModule, limits: GuardedLimits): void {
  app.post(
    '/token',
    {
      config: { imAuth: 'public' },
      schema: {
        tags,
        summary: 'Get an app-admin token (client_credentials) or a user token (password)',
        security: PUBLIC,
        body: TokenRequest,
        response: { 200: TokenResult, ...imErrors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const body = request.body;
      // Charged to the app only once the credentials hold; a wrong one counts against the caller's IP.
      const admit = () => chargeApp(limits, imApp);
      try {
        if (body.grant_type === 'client_credentials') return await im.apps.appToken(imApp, body.client_id, body.client_secret, body.ttl, admit);
        return await im.apps.userToken(imApp, body.username, body.password, body.ttl, request.clientAddress, admit);
      } catch (error) {
        if (isCredentialFailure(error)) noteFailure(limits, request.clientAddress, imApp.appkey);
        throw error;
      }
    },
  );
}

/** Register, read and delete users. */
function userRoutes(app: ImApp, im: ImModule): void {
  app.post(
    '/users',
    { schema: { tags, summary: 'Register one user or an array of users', security, body: CreateUsersRequest, response: { 200: ImEntitiesEnvelope(ImUserView), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const input = Array.isArray(request.body) ? request.body : [request.body];
      return imEntities(request, imApp, await im.users.create(imApp, input));
    },
  );

  app.get(
    '/users/:username',
    { config: { imAuth: { self: 'username' } }, schema: { tags, summary: 'Read a user', security, params: UsernameParams, response: { 200: ImEntitiesEnvelope(ImUserView), ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imEntities(request, imApp, [imUserView(await im.users.require(imApp, request.params.username))]);
    },
  );

  app.delete(
    '/users/:username',
    {
      schema: {
        tags,
        summary: 'Delete a user with their tokens, memberships and stored messages',
        security,
        params: UsernameParams,
        response: { 200: ImEntitiesEnvelope(ImUserView), ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      return imEntities(request, imApp, [await im.removeUser(imApp, request.params.username)]);
    },
  );
}

/** What was stored for a user while offline. */
function offlineRoutes(app: ImApp, im: ImModule): void {
  app.get(
    '/users/:username/offline_msg_count',
    {
      config: { imAuth: { self: 'username' } },
      schema: { tags, summary: 'Number of messages stored for the user while offline', security, params: UsernameParams, response: { 200: ImEnvelope(OfflineCount), ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const user = await im.users.require(imApp, request.params.username);
      return imData(request, imApp, { [user.username]: await im.offline.count(imApp, user.username) });
    },
  );

  app.get(
    '/users/:username/offline_msg_status/:msgId',
    {
      config: { imAuth: { self: 'username' } },
      schema: { tags, summary: 'Whether a stored message reached the user', security, params: OfflineStatusParams, response: { 200: ImEnvelope(OfflineStatus), ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const username = foldUsername(request.params.username);
      const status = await im.offline.status(imApp, username, request.params.msgId);
      if (!status) throw new AppError('service_resource_not_found', { resource: `Service resource offline message ${request.params.msgId} of ${username}` });
      return imData(request, imApp, { [request.params.msgId]: status });
    },
  );
}
