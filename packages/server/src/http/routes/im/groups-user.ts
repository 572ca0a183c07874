/**
 * Groups from their users' side, as Easemob's Web SDK calls them: `joinGroup` (`/apply`),
 * `acceptGroupJoinRequest` / `rejectGroupJoinRequest` (`/apply_verify`), `leaveGroup` (`/quit`),
 * `inviteUsersToGroup` (`/invite`), `acceptGroupInvite` / `rejectGroupInvite` (`/invite_verify`), `getPublicGroups` (`/publicchatgroups`) and `getJoinedGroups`
 * with `needAffiliations` / `needRole` (`/chatgroups/user/{me}`). The rules are the membership
 * service's (modules/im/group-membership.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GroupParams, ImDataPage, imEnvelopeFields, ImEnvelope } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { imData, imEntities } from '../../../modules/im/envelope.js';
import { MAX_INVITES, MAX_REASON } from '../../../modules/im/group-membership.js';
import type { ImModule } from '../../../modules/im/index.js';
import { DEFAULT_PAGE_LIMIT } from '../../../modules/im/paging.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf, operatorOf } from './context.js';

const tags = ['im'];
const Name = Type.String({ minLength: 1, maxLength: 128 });

const Applied = ImEnvelope(Type.Object({ result: Type.Boolean(), action: Type.Literal('apply'), id: Type.String(), user: Type.String() }, { examples: [{ result: true, action: 'apply', id: '7263027429605377', user: 'bob' }] }));
const VerifyBody = Type.Object(
  { applicant: Name, verifyResult: Type.Boolean(), reason: Type.Optional(Type.String({ maxLength: MAX_REASON })) },
  { examples: [{ applicant: 'bob', verifyResult: true, reason: '' }] },
);
const Verified = ImEnvelope(Type.Object({ result: Type.Boolean(), action: Type.Literal('apply_verify'), id: Type.String(), user: Type.String() }, { examples: [{ result: true, action: 'apply_verify', id: '7263027429605377', user: 'bob' }] }));
const Quit = ImEnvelope(Type.Object({ result: Type.Boolean() }, { examples: [{ result: true }] }));
const InviteBody = Type.Object({ usernames: Type.Array(Name, { minItems: 1, maxItems: MAX_INVITES }) }, { examples: [{ usernames: ['cal', 'dan'] }] });
const Invited = ImEnvelope(
  Type.Array(Type.Object({ result: Type.Boolean(), action: Type.Literal('invite'), id: Type.String(), user: Type.String() }), {
    examples: [[{ result: true, action: 'invite', id: '7263027429605377', user: 'cal' }]],
  }),
);
const InviteVerifyBody = Type.Object({ invitee: Name, verifyResult: Type.Boolean() }, { examples: [{ invitee: 'cal', verifyResult: true }] });
const InviteVerified = ImEnvelope(
  Type.Object({ result: Type.Boolean(), action: Type.Literal('invite_verify'), id: Type.String(), user: Type.String() }, { examples: [{ result: true, action: 'invite_verify', id: '7263027429605377', user: 'cal' }] }),
);
const PublicGroup = Type.Object({ groupid: Type.String(), groupname: Type.String(), id: Type.String(), name: Type.String(), owner: Type.String(), affiliations: Type.Integer() });
const ENVELOPE_EXAMPLE = { timestamp: 1764000000000, organization: 'acme', application: '8be024f0-0000-4000-8000-5d598d5f8402', duration: 1, applicationName: 'shop' };
const PublicPage = ImDataPage(PublicGroup, {
  examples: [
    {
      ...ENVELOPE_EXAMPLE,
      path: '/publicchatgroups',
      uri: 'http://127.0.0.1:8080/acme/shop/publicchatgroups',
      action: 'get',
      data: [{ groupid: '7263027429605377', groupname: 'Open team', id: '7263027429605377', name: 'Open team', owner: 'alice', affiliations: 3 }],
      count: 1,
    },
  ],
});
const PublicQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `Groups per page (default ${DEFAULT_PAGE_LIMIT})` })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
const UserGroupsQuery = Type.Object({
  pagenum: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  pagesize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
const UserGroup = Type.Object({
  groupId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  public: Type.Boolean(),
  membersonly: Type.Boolean(),
  allowinvites: Type.Boolean(),
  maxusers: Type.Integer(),
  affiliations_count: Type.Integer(),
  permission: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
  disabled: Type.Boolean(),
  created: Type.Integer(),
});
const UserGroups = Type.Object(
  { ...imEnvelopeFields(), entities: Type.Array(UserGroup), count: Type.Integer() },
  {
    examples: [
      {
        ...ENVELOPE_EXAMPLE,
        path: '/chatgroups/user/alice',
        uri: 'http://127.0.0.1:8080/acme/shop/chatgroups/user/alice',
        action: 'get',
        entities: [
          { groupId: '7263027429605377', name: 'Open team', description: '', public: true, membersonly: false, allowinvites: true, maxusers: 200, affiliations_count: 3, permission: 'owner', disabled: false, created: 1764000000000 },
        ],
        count: 1,
      },
    ],
  },
);

/** A user token's own user; the app token is refused where only a user can act (join, leave). */
function actingUser(request: Parameters<typeof operatorOf>[0], what: string): string {
  const user = operatorOf(request);
  if (user === null) throw new AppError('forbidden_op', { detail: `${what} takes the user's own token; the app token adds and removes members with /chatgroups/{id}/users/{username}` });
  return user;
}

export const imGroupUserRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);

  app.post(
    '/chatgroups/:id/apply',
    { config: { imAuth: 'user' }, schema: { tags, summary: 'Join a public group, at once or, when it needs approval, by a request its owner answers (the user token of who joins; `message` the request\'s)', security, params: GroupParams, 'x-no-body': true, response: { 200: Applied, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const user = actingUser(request, 'joining a group');
      // The SDK sends `{message}`; a bodiless call asks with no message.
      const body = request.body as { message?: unknown } | undefined;
      if (body?.message !== undefined && typeof body.message !== 'string') throw new AppError('illegal_argument', { detail: 'message: expected a string' });
      const message = typeof body?.message === 'string' ? body.message : '';
      const outcome = await im.membership.join(imApp, request.params.id, user, message);
      return imData(request, imApp, { result: outcome !== 'member', action: 'apply' as const, id: request.params.id, user });
    },
  );

  app.post(
    '/chatgroups/:id/apply_verify',
    {
      config: { imAuth: { member: 'id', kind: 'group' } },
      schema: { tags, summary: 'Accept (verifyResult true) or decline a request to join (the owner, an admin, or the app)', security, params: GroupParams, body: VerifyBody, response: { 200: Verified, ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const { applicant, verifyResult, reason } = request.body;
      await im.membership.verify(imApp, request.params.id, applicant, verifyResult, reason ?? '', operatorOf(request));
      return imData(request, imApp, { result: true, action: 'apply_verify' as const, id: request.params.id, user: applicant.toLowerCase() });
    },
  );

  app.delete(
    '/chatgroups/:id/quit',
    { config: { imAuth: { member: 'id', kind: 'group' } }, schema: { tags, summary: 'Leave a group (a member, not its owner)', security, params: GroupParams, response: { 200: Quit, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      await im.membership.leave(imApp, request.params.id, actingUser(request, 'leaving a group'));
      return imData(request, imApp, { result: true });
    },
  );

  app.post(
    '/chatgroups/:id/invite',
    {
      config: { imAuth: { member: 'id', kind: 'group' } },
      schema: {
        tags,
        summary: "Invite users (the owner, members when the group allows invites, or the app): added at once, or, when a user invites to a group with invite_need_confirm, once they accept",
        security,
        params: GroupParams,
        body: InviteBody,
        response: { 200: Invited, ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const names = await im.membership.invite(imApp, request.params.id, request.body.usernames, operatorOf(request));
      return imData(request, imApp, names.map((user) => ({ result: true, action: 'invite' as const, id: request.params.id, user })));
    },
  );

  app.post(
    '/chatgroups/:id/invite_verify',
    {
      config: { imAuth: 'user' },
      schema: { tags, summary: 'Accept (verifyResult true) or decline an invitation held for confirmation (the invitee, or the app)', security, params: GroupParams, body: InviteVerifyBody, response: { 200: InviteVerified, ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const { invitee, verifyResult } = request.body;
      await im.invites.answer(imApp, request.params.id, invitee, verifyResult, operatorOf(request));
      return imData(request, imApp, { result: true, action: 'invite_verify' as const, id: request.params.id, user: invitee.toLowerCase() });
    },
  );

  listRoutes(app, im);
};

type Scope = Parameters<FastifyPluginAsyncTypebox>[0];

/** The public groups, and a user's groups with their settings and role. */
function listRoutes(app: Scope, im: ImModule): void {
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  app.get(
    '/publicchatgroups',
    { config: { imAuth: 'user' }, schema: { tags, summary: "The app's public groups, newest first (limit, cursor)", security, querystring: PublicQuery, response: { 200: PublicPage, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const page = await im.membership.publicGroups(imApp, request.query.limit ?? DEFAULT_PAGE_LIMIT, request.query.cursor);
      const data = page.items.map((g) => ({ groupid: g.id, groupname: g.name, id: g.id, name: g.name, owner: g.owner, affiliations: g.members }));
      return { ...imData(request, imApp, data), count: data.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
    },
  );

  app.get(
    '/chatgroups/user/:username',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags,
        summary: 'The groups a user is in with their settings and role, latest joined first (pagenum, pagesize)',
        security,
        params: Type.Object({ org: Type.String(), app: Type.String(), username: Name }),
        querystring: UserGroupsQuery,
        response: { 200: UserGroups, ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const groups = await im.groups.joined(imApp, request.params.username, request.query.pagesize ?? 10, request.query.pagenum ?? 1);
      const entities = groups.map((g) => ({
        groupId: g.id,
        name: g.name,
        description: g.description,
        public: g.public,
        membersonly: g.settings.approval,
        allowinvites: g.settings.allowInvites,
        maxusers: g.maxusers,
        affiliations_count: g.members,
        permission: g.role,
        disabled: false,
        created: g.createdAt,
      }));
      return { ...imEntities(request, imApp, entities), count: entities.length };
    },
  );
}
