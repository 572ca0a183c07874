/**
 * Groups and chat rooms listed and edited by the app admin (contract 6.2, Easemob's shapes):
 * paged lists newest first, the groups a user joined (the user themselves too), and edits of name,
 * description, maxusers (never below the current members) and settings, and changes of owner (the
 * group's owner too). Otherwise the app-admin token.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ChatroomListItem,
  GroupListItem,
  GroupParams,
  GroupUpdated,
  ImDataOf,
  ImDataPage,
  JoinedGroup,
  JoinedGroupsQuery,
  PageQuery,
  UpdateChatroomRequest,
  UpdateGroupRequest,
  UsernameParams,
} from '@parley/protocol';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { DEFAULT_PAGE_LIMIT } from '../../../modules/im/paging.js';
import type { GroupChanges, ImGroupListed } from '../../../modules/im/ports.js';
import { imAppOf, operatorOf } from './context.js';
import { IM_TOKEN, imErrors } from '../../openapi.js';

const tags = ['im'];
const EXAMPLE_ENVELOPE = {
  timestamp: 1764000000000,
  organization: 'acme',
  application: '8be024f0-0000-4000-8000-5d598d5f8402',
  duration: 1,
  applicationName: 'shop',
};
const example = (path: string, action: string, rest: Record<string, unknown>) => ({ ...EXAMPLE_ENVELOPE, path, uri: `http://127.0.0.1:8080/acme/shop${path}`, action, ...rest });

const GroupPage = ImDataPage(GroupListItem, {
  examples: [example('/chatgroups', 'get', { data: [{ owner: 'alice', groupid: '7263027429605377', affiliations: 2, type: 'group', last_modified: '1764000000000', groupname: 'Support team' }], count: 1 })],
});
const RoomPage = ImDataPage(ChatroomListItem, {
  examples: [example('/chatrooms', 'get', { data: [{ id: '7263027429605378', name: 'Launch day', owner: 'alice', affiliations_count: 12 }], count: 1 })],
});
const JoinedPage = ImDataPage(JoinedGroup, {
  examples: [
    example('/users/alice/joined_chatgroups', 'get', {
      data: [{ groupid: '7263027429605377', groupname: 'Support team', id: '7263027429605377', name: 'Support team', permission: 'owner', disabled: false }],
      count: 1,
    }),
  ],
});
const GroupEdited = ImDataOf(GroupUpdated, { examples: [example('/chatgroups/7263027429605377', 'put', { data: { groupname: true, maxusers: true } })] });

const groupItem = (g: ImGroupListed) => ({ owner: g.owner, groupid: g.id, affiliations: g.members, type: 'group' as const, last_modified: String(g.modifiedAt), groupname: g.name });
const roomItem = (g: ImGroupListed) => ({ id: g.id, name: g.name, owner: g.owner, affiliations_count: g.members });

/** Easemob names a room's name `groupname` in the edit's answer, as a group's. */
const ANSWER_FIELD: Record<keyof GroupChanges, keyof GroupUpdated> = {
  name: 'groupname',
  description: 'description',
  maxusers: 'maxusers',
  public: 'public',
  approval: 'membersonly',
  allowInvites: 'allowinvites',
  custom: 'custom',
  avatar: 'avatar',
};
/** The domain's names for the fields of a group edit. */
const groupChanges = (b: UpdateGroupRequest): GroupChanges => ({
  name: b.groupname,
  description: b.description,
  maxusers: b.maxusers,
  public: b.public,
  approval: b.membersonly,
  allowInvites: b.allowinvites,
  custom: b.custom,
  avatar: b.avatar,
});
const changedAnswer = (fields: Array<keyof GroupChanges>): GroupUpdated => Object.fromEntries(fields.map((f) => [ANSWER_FIELD[f], true]));

export const imGroupAdminRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  const listSchema = (summary: string, response: typeof GroupPage | typeof RoomPage) => ({
    tags,
    summary,
    security: IM_TOKEN,
    querystring: PageQuery,
    response: { 200: response, ...imErrors(400, 401, 403, 404, 429) },
  });

  app.get('/chatgroups', { schema: listSchema('List groups, newest first, a page at a time (limit 1-100, cursor; q: name contains, or the id)', GroupPage) }, async (request) => {
    const imApp = imAppOf(request);
    const page = await im.groups.list(imApp, 'group', request.query.limit ?? DEFAULT_PAGE_LIMIT, request.query.cursor, request.query.q);
    return { ...imData(request, imApp, page.items.map(groupItem)), count: page.items.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
  });

  app.get('/chatrooms', { schema: listSchema('List chat rooms, newest first, a page at a time (limit 1-100, cursor; q: name contains, or the id)', RoomPage) }, async (request) => {
    const imApp = imAppOf(request);
    const page = await im.groups.list(imApp, 'chatroom', request.query.limit ?? DEFAULT_PAGE_LIMIT, request.query.cursor, request.query.q);
    return { ...imData(request, imApp, page.items.map(roomItem)), count: page.items.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
  });

  app.get(
    '/users/:username/joined_chatgroups',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags,
        summary: 'List the groups a user is a member of, latest joined first (pagesize, pagenum; without them the first 500); the user themselves or the app',
        security: IM_TOKEN,
        params: UsernameParams,
        querystring: JoinedGroupsQuery,
        response: { 200: JoinedPage, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const groups = await im.groups.joined(imApp, request.params.username, request.query.pagesize, request.query.pagenum);
      const data = groups.map((g) => ({ groupid: g.id, groupname: g.name, id: g.id, name: g.name, permission: g.role, disabled: false }));
      return { ...imData(request, imApp, data), count: groups.length };
    },
  );

  app.put(
    '/chatgroups/:id',
    {
      config: { imAuth: { member: 'id', kind: 'group', role: 'owner' } },
      schema: {
        tags,
        summary: "Edit a group's name, description, maxusers, flags, custom text or avatar, or give it to a member (`newowner`); its owner or the app",
        security: IM_TOKEN,
        params: GroupParams,
        body: UpdateGroupRequest,
        response: { 200: GroupEdited, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const b = request.body;
      if (b.newowner !== undefined) {
        await im.membership.changeOwner(imApp, request.params.id, b.newowner, operatorOf(request));
        return imData(request, imApp, { newowner: true });
      }
      const fields = await im.groups.update(imApp, 'group', request.params.id, groupChanges(b), operatorOf(request));
      return imData(request, imApp, changedAnswer(fields));
    },
  );

  app.put(
    '/chatrooms/:id',
    {
      schema: { tags, summary: "Edit a chat room's name, description or maxusers", security: IM_TOKEN, params: GroupParams, body: UpdateChatroomRequest, response: { 200: GroupEdited, ...imErrors(400, 401, 403, 404, 429) } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const b = request.body;
      const fields = await im.groups.update(imApp, 'chatroom', request.params.id, { name: b.name, description: b.description, maxusers: b.maxusers });
      return imData(request, imApp, changedAnswer(fields));
    },
  );
};
