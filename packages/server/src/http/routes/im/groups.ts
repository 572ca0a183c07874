import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreateChatroomRequest,
  CreateGroupRequest,
  GroupCreated,
  GroupDeleted,
  GroupMemberParams,
  GroupMembers,
  GroupParams,
  GroupViews,
  ImEnvelope,
  MembershipChanged,
  MembershipChanges,
  RoomCreated,
} from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { GroupKind, ImGroup, ImMember } from '../../../modules/im/ports.js';
import { validUsername } from '../../../modules/im/users.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf, operatorOf } from './context.js';

const groupView = (g: ImGroup, affiliations: Array<{ owner: string } | { member: string }>) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  public: g.public,
  maxusers: g.maxusers,
  owner: g.owner,
  created: g.createdAt,
  membersonly: g.settings.approval,
  allowinvites: g.settings.allowInvites,
  invite_need_confirm: g.settings.inviteNeedConfirm,
  custom: g.settings.custom,
  avatar: g.settings.avatar,
  affiliations_count: affiliations.length,
  affiliations,
});

const affiliation = (m: ImMember) => (m.role === 'owner' ? { owner: m.username } : { member: m.username });
/** The owner first, then the members in join order (as the member pages). */
const ownerFirst = (members: ImMember[]) => [...members.filter((m) => m.role === 'owner'), ...members.filter((m) => m.role !== 'owner')];

/** `version=v3` paging of the SDK's `listGroupMembers`; without `pagenum` and `pagesize`, every member. */
const MembersQuery = Type.Object({
  pagenum: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page from 1 (with pagesize)' })),
  pagesize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Members per page, 1-1000' })),
});

/**
 * The owner and settings of a group created with `body`: the app token names the owner and
 * `public`; a user token creates a group it owns (another `owner` is 403), private unless `public`.
 */
function creation(b: CreateGroupRequest, operator: string | null) {
  if (operator === null && b.owner === undefined) throw new AppError('illegal_argument', { detail: 'owner: required with the app token' });
  if (operator === null && b.public === undefined) throw new AppError('illegal_argument', { detail: 'public: required with the app token' });
  if (operator !== null && b.owner !== undefined && b.owner.trim().toLowerCase() !== operator) {
    throw new AppError('forbidden_op', { detail: `owner: a user token creates groups its own user (${operator}) owns` });
  }
  return {
    name: b.groupname,
    description: b.description ?? b.desc ?? '',
    public: b.public ?? false,
    maxusers: b.maxusers,
    owner: operator ?? (b.owner as string),
    members: b.members ?? [],
    settings: {
      approval: b.approval ?? false,
      allowInvites: b.allowinvites ?? false,
      inviteNeedConfirm: b.invite_need_confirm ?? b.inviteNeedConfirm ?? false,
      custom: b.custom ?? '',
      avatar: b.avatar ?? '',
    },
  };
}

/**
 * Groups (`/chatgroups`) and chat rooms (`/chatrooms`), contract 4.2 and 6.8: the app token does
 * everything; a user token creates groups it owns, reads those it is a member of, and deletes and
 * removes members of those it owns. Users' own joins, leaves and invitations: groups-user.ts.
 */
export const imGroupRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  const createGroup = { tags, summary: 'Create a group (app token: any owner; user token: owned by its user)', security, body: CreateGroupRequest, response: { 200: ImEnvelope(GroupCreated), ...errors } };
  app.post('/chatgroups', { config: { imAuth: 'user' }, schema: createGroup }, async (request) => {
    const imApp = imAppOf(request);
    const operator = operatorOf(request);
    const group = await im.groups.create(imApp, 'group', creation(request.body, operator), operator);
    return imData(request, imApp, { groupid: group.id });
  });

  app.post('/chatrooms', { schema: { tags, summary: 'Create a chat room', security, body: CreateChatroomRequest, response: { 200: ImEnvelope(RoomCreated), ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    const b = request.body;
    const room = await im.groups.create(imApp, 'chatroom', {
      name: b.name,
      description: b.description,
      public: true,
      maxusers: b.maxusers,
      owner: b.owner,
      members: b.members ?? [],
    });
    return imData(request, imApp, { id: room.id });
  });

  for (const [segment, kind, idField] of [
    ['chatgroups', 'group', 'groupid'],
    ['chatrooms', 'chatroom', 'id'],
  ] as Array<[string, GroupKind, string]>) {
    const read = { tags, summary: `Read a ${kind} with its members`, security, params: GroupParams, response: { 200: ImEnvelope(GroupViews), ...errors } };
    // Members read their group, its owner changes it (contract 6.8); adding members is the app token's.
    const memberScope = { imAuth: { member: 'id', kind } } as const;
    const ownerScope = { imAuth: { member: 'id', kind, role: 'owner' } } as const;
    app.get(`/${segment}/:id`, { config: memberScope, schema: read }, async (request) => {
      const imApp = imAppOf(request);
      const group = await im.groups.require(imApp, kind, request.params.id);
      const members = await im.groups.members(imApp, kind, group.id);
      return imData(request, imApp, [groupView(group, ownerFirst(members).map(affiliation))]);
    });

    app.delete(`/${segment}/:id`, { config: ownerScope, schema: { tags, summary: `Delete a ${kind} (its owner, or the app)`, security, params: GroupParams, response: { 200: ImEnvelope(GroupDeleted(idField)), ...errors } } }, async (request) => {
      const imApp = imAppOf(request);
      await im.groups.remove(imApp, kind, request.params.id, operatorOf(request));
      return imData(request, imApp, { success: true, [idField]: request.params.id });
    });

    const listMembers = { tags, summary: `List the members of a ${kind}, the owner first (pagenum and pagesize: a page)`, security, params: GroupParams, querystring: MembersQuery, response: { 200: ImEnvelope(GroupMembers), ...errors } };
    app.get(`/${segment}/:id/users`, { config: memberScope, schema: listMembers }, async (request) => {
      const imApp = imAppOf(request);
      const { pagenum, pagesize } = request.query;
      const members =
        pagenum === undefined && pagesize === undefined
          ? ownerFirst(await im.groups.members(imApp, kind, request.params.id))
          : await im.membership.membersPage(imApp, kind, request.params.id, pagenum ?? 1, pagesize ?? 10);
      return imData(request, imApp, members.map(affiliation));
    });

    const change = { tags, security, params: GroupMemberParams, response: { 200: ImEnvelope(MembershipChanged(idField)), ...errors } };
    app.post(`/${segment}/:id/users/:username`, { schema: { ...change, summary: `Add a member to a ${kind}`, 'x-no-body': true } }, async (request) => {
      const imApp = imAppOf(request);
      const added = await im.groups.addMember(imApp, kind, request.params.id, request.params.username);
      return imData(request, imApp, { result: added, action: 'add_member', [idField]: request.params.id, user: validUsername(request.params.username) });
    });

    const removal = { ...change, summary: `Remove members from a ${kind} (its owner, an admin, or the app); several names: comma-separated`, response: { 200: ImEnvelope(MembershipChanges(idField)), ...errors } };
    // Members reach it: the groups service lets the owner and admins remove others (and anyone themselves).
    app.delete(`/${segment}/:id/users/:username`, { config: memberScope, schema: removal }, async (request) => {
      const imApp = imAppOf(request);
      const names = await im.groups.removeMembers(imApp, kind, request.params.id, request.params.username.split(','), operatorOf(request));
      const done = names.map((user) => ({ result: true, action: 'remove_member', [idField]: request.params.id, user }));
      return imData(request, imApp, done.length === 1 ? (done[0] as (typeof done)[number]) : done);
    });
  }
};
