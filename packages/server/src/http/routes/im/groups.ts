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
  RoomCreated,
} from '@parley/protocol';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { GroupKind, ImGroup } from '../../../modules/im/ports.js';
import { validUsername } from '../../../modules/im/users.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const groupView = (g: ImGroup, affiliations: Array<{ owner: string } | { member: string }>) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  public: g.public,
  maxusers: g.maxusers,
  owner: g.owner,
  created: g.createdAt,
  affiliations_count: affiliations.length,
  affiliations,
});

/** Groups (`/chatgroups`) and chat rooms (`/chatrooms`), contract 4.2; app-admin token, members read (6.8). */
export const imGroupRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const tags = ['im'];
  const security = IM_TOKEN;
  const errors = imErrors(...IM_ADMIN_ERRORS);
  app.post('/chatgroups', { schema: { tags, summary: 'Create a group', security, body: CreateGroupRequest, response: { 200: ImEnvelope(GroupCreated), ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    const b = request.body;
    const group = await im.groups.create(imApp, 'group', {
      name: b.groupname,
      description: b.description ?? '',
      public: b.public,
      maxusers: b.maxusers,
      owner: b.owner,
      members: b.members ?? [],
    });
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
    // Members read their group (contract 6.8); everything else here is the app token's.
    const memberScope = { imAuth: { member: 'id', kind } } as const;
    app.get(`/${segment}/:id`, { config: memberScope, schema: read }, async (request) => {
      const imApp = imAppOf(request);
      const group = await im.groups.require(imApp, kind, request.params.id);
      const members = await im.groups.members(imApp, kind, group.id);
      return imData(request, imApp, [groupView(group, members.map((m) => (m.role === 'owner' ? { owner: m.username } : { member: m.username })))]);
    });

    app.delete(`/${segment}/:id`, { schema: { tags, summary: `Delete a ${kind}`, security, params: GroupParams, response: { 200: ImEnvelope(GroupDeleted(idField)), ...errors } } }, async (request) => {
      const imApp = imAppOf(request);
      await im.groups.remove(imApp, kind, request.params.id);
      return imData(request, imApp, { success: true, [idField]: request.params.id });
    });

    const listMembers = { tags, summary: `List the members of a ${kind}`, security, params: GroupParams, response: { 200: ImEnvelope(GroupMembers), ...errors } };
    app.get(`/${segment}/:id/users`, { config: memberScope, schema: listMembers }, async (request) => {
      const imApp = imAppOf(request);
      const members = await im.groups.members(imApp, kind, request.params.id);
      return imData(request, imApp, members.map((m) => (m.role === 'owner' ? { owner: m.username } : { member: m.username })));
    });

    const change = { tags, security, params: GroupMemberParams, response: { 200: ImEnvelope(MembershipChanged(idField)), ...errors } };
    app.post(`/${segment}/:id/users/:username`, { schema: { ...change, summary: `Add a member to a ${kind}`, 'x-no-body': true } }, async (request) => {
      const imApp = imAppOf(request);
      const added = await im.groups.addMember(imApp, kind, request.params.id, request.params.username);
      return imData(request, imApp, { result: added, action: 'add_member', [idField]: request.params.id, user: validUsername(request.params.username) });
    });

    app.delete(`/${segment}/:id/users/:username`, { schema: { ...change, summary: `Remove a member from a ${kind}` } }, async (request) => {
      const imApp = imAppOf(request);
      await im.groups.removeMember(imApp, kind, request.params.id, request.params.username);
      return imData(request, imApp, { result: true, action: 'remove_member', [idField]: request.params.id, user: validUsername(request.params.username) });
    });
  }
};
