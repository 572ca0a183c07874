/**
 * Users listed and edited by the app admin (contract 6.2, Easemob's shapes): the paged list, the
 * nickname, a password reset without the old one. App-admin token only, as Easemob documents
 * these; a user token gets 403.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImChangePasswordRequest, ImActionEnvelope, ImEntitiesOf, ImCountedPage, ImUserView, PageQuery, UpdateUserRequest, UsernameParams } from '@parley/protocol';
import { imAction, imEntities } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { DEFAULT_PAGE_LIMIT } from '../../../modules/im/paging.js';
import { imAppOf } from './context.js';
import { IM_TOKEN, imErrors } from '../../openapi.js';

const tags = ['im'];
const EXAMPLE_ENVELOPE = {
  uri: 'http://127.0.0.1:8080/acme/shop/users',
  timestamp: 1764000000000,
  organization: 'acme',
  application: '8be024f0-0000-4000-8000-5d598d5f8402',
  duration: 1,
  applicationName: 'shop',
};
const EXAMPLE_USER = { uuid: 'ab90eff0-0000-4000-9174-8f161649a182', type: 'user' as const, created: 1764000000000, modified: 1764000000000, username: 'alice', nickname: 'Alice', activated: true };

const UserPage = ImCountedPage(ImUserView, {
  examples: [{ ...EXAMPLE_ENVELOPE, path: '/users', action: 'get', entities: [EXAMPLE_USER], count: 1, cursor: 'WyJ1c2VycyIsMTc2NDAwMDAwMDAwMCwiYWxpY2UiXQ' }],
});
const UserUpdated = ImEntitiesOf(ImUserView, { examples: [{ ...EXAMPLE_ENVELOPE, path: '/users/alice', action: 'put', entities: [EXAMPLE_USER] }] });
const PasswordSet = ImActionEnvelope({ examples: [{ ...EXAMPLE_ENVELOPE, path: '/users/alice/password', action: 'set user password' }] });

export const imUserAdminRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  app.get(
    '/users',
    {
      schema: {
        tags,
        summary: 'List users, oldest first, a page at a time (limit 1-100, cursor from the previous page; q: username or nickname contains)',
        security: IM_TOKEN,
        querystring: PageQuery,
        response: { 200: UserPage, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const page = await im.users.list(imApp, request.query.limit ?? DEFAULT_PAGE_LIMIT, request.query.cursor, request.query.q);
      return { ...imEntities(request, imApp, page.items), count: page.items.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
    },
  );

  app.put(
    '/users/:username',
    {
      schema: {
        tags,
        summary: "Set a user's nickname (an empty one clears it)",
        security: IM_TOKEN,
        params: UsernameParams,
        body: UpdateUserRequest,
        response: { 200: UserUpdated, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      return imEntities(request, imApp, [await im.users.setNickname(imApp, request.params.username, request.body.nickname)]);
    },
  );

  app.put(
    '/users/:username/password',
    {
      schema: {
        tags,
        summary: "Set a user's password without the old one (at least 6 characters)",
        description: 'Tokens issued before keep working until they expire.',
        security: IM_TOKEN,
        params: UsernameParams,
        body: ImChangePasswordRequest,
        response: { 200: PasswordSet, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      await im.users.setPassword(imApp, request.params.username, request.body.newpassword);
      return imAction(request, imApp, 'set user password');
    },
  );
};
