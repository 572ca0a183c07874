/**
 * A group's or chat room's admins, mutes, block and allow lists and announcement, as Easemob's Web
 * SDK calls them (`/chatgroups/{id}/admin`, `/mute`, `/sdk/chatgroups/{id}/mute/{user}`,
 * `/blocks/users`, `/ban`, `/white/users`, `/announcement`, and the same under `/chatrooms`), in
 * Easemob's answer shapes (a room's lists name it `chatroomid` where a group's say `groupid`). Any
 * member's (or the app's) token reaches them; who may change what is the services' rule
 * (modules/im/group-roles.ts, group-mutes.ts): 403 `forbidden_op` otherwise. Several names in a
 * path: comma-separated.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { GroupMemberParams, GroupParams, ImEnvelope } from '@parley/protocol';
import { Type } from 'typebox';
import { imData } from '../../../modules/im/envelope.js';
import { MAX_ANNOUNCEMENT } from '../../../modules/im/group-mutes.js';
import { MAX_LIST_USERS } from '../../../modules/im/group-roles.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { GroupKind } from '../../../modules/im/ports.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf, operatorOf } from './context.js';

const tags = ['im'];
const security = IM_TOKEN;
const errors = imErrors(...IM_ADMIN_ERRORS);
const Name = Type.String({ minLength: 1, maxLength: 128 });
const Names = Type.Array(Name, { minItems: 1, maxItems: MAX_LIST_USERS });
const GROUP = '7263027429605377';

const NameList = ImEnvelope(Type.Array(Type.String(), { examples: [['ben', 'cal']] }));
type Scope = Parameters<FastifyPluginAsyncTypebox>[0];

/** Groups or chat rooms: their path segment, kind, the id's name in list answers, and words for the summaries. */
interface Target {
  segment: 'chatgroups' | 'chatrooms';
  kind: GroupKind;
  idField: 'groupid' | 'chatroomid';
  /** "group" or "chat room". */
  noun: string;
  /** The SDK's method name for the group's one, and the room's. */
  sdk: (group: string, room: string) => string;
  member: { imAuth: { member: 'id'; kind: GroupKind } };
}

const TARGETS: Target[] = [
  { segment: 'chatgroups', kind: 'group', idField: 'groupid', noun: 'group', sdk: (group) => `\`${group}\``, member: { imAuth: { member: 'id', kind: 'group' } } },
  { segment: 'chatrooms', kind: 'chatroom', idField: 'chatroomid', noun: 'chat room', sdk: (_, room) => `\`${room}\``, member: { imAuth: { member: 'id', kind: 'chatroom' } } },
];

const Listed = (t: Target, action: string) =>
  ImEnvelope(
    Type.Array(Type.Object({ result: Type.Boolean(), action: Type.String(), user: Type.String(), [t.idField]: Type.String() }), {
      examples: [[{ result: true, action, user: 'ben', [t.idField]: GROUP }]],
    }),
  );

/** The names of a path's `{username}`: one, or several comma-separated. */
const namesOf = (value: string): string[] => value.split(',');

export const imGroupRoleRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  for (const t of TARGETS) {
    adminRoutes(app, im, t);
    muteRoutes(app, im, t);
    listRoutes(app, im, t, 'block');
    listRoutes(app, im, t, 'allow');
    noteRoutes(app, im, t);
  }
};

function adminRoutes(app: Scope, im: ImModule, t: Target): void {
  const { segment, kind, noun, sdk, member } = t;
  app.get(`/${segment}/:id/admin`, { config: member, schema: { tags, summary: `A ${noun}'s admins (${sdk('getGroupAdmin', 'getChatRoomAdmin')}; any member)`, security, params: GroupParams, response: { 200: NameList, ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await im.groupRoles.admins(imApp, kind, request.params.id));
  });

  const Added = ImEnvelope(Type.Object({ result: Type.Literal('success'), newadmin: Type.String() }, { examples: [{ result: 'success', newadmin: 'ben' }] }));
  const body = Type.Object({ newadmin: Name }, { examples: [{ newadmin: 'ben' }] });
  app.post(
    `/${segment}/:id/admin`,
    { config: member, schema: { tags, summary: `Make a member an admin (${sdk('setGroupAdmin', 'setChatRoomAdmin')}; the owner, or the app); the members get \`setAdmin\``, security, params: GroupParams, body, response: { 200: Added, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const user = await im.groupRoles.setAdmin(imApp, kind, request.params.id, request.body.newadmin, true, operatorOf(request));
      return imData(request, imApp, { result: 'success' as const, newadmin: user });
    },
  );

  const Removed = ImEnvelope(Type.Object({ result: Type.Literal('success'), oldadmin: Type.String() }, { examples: [{ result: 'success', oldadmin: 'ben' }] }));
  app.delete(
    `/${segment}/:id/admin/:username`,
    { config: member, schema: { tags, summary: `Unmake an admin (${sdk('removeGroupAdmin', 'removeChatRoomAdmin')}; the owner, or the app); the members get \`removeAdmin\``, security, params: GroupMemberParams, response: { 200: Removed, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const user = await im.groupRoles.setAdmin(imApp, kind, request.params.id, request.params.username, false, operatorOf(request));
      return imData(request, imApp, { result: 'success' as const, oldadmin: user });
    },
  );
}

function muteRoutes(app: Scope, im: ImModule, t: Target): void {
  const { segment, kind, noun, sdk, member } = t;
  const Muted = ImEnvelope(Type.Array(Type.Object({ result: Type.Boolean(), expire: Type.Integer(), user: Type.String() }), { examples: [[{ result: true, expire: 1764003600000, user: 'ben' }]] }));
  const body = Type.Object(
    { usernames: Names, mute_duration: Type.Integer({ description: 'ms; -1: until unmuted' }) },
    { examples: [{ usernames: ['ben'], mute_duration: 3600000 }] },
  );
  app.post(
    `/${segment}/:id/mute`,
    { config: member, schema: { tags, summary: `Mute members for \`mute_duration\` ms, -1 until unmuted (${sdk('muteGroupMember', 'muteChatRoomMember')}; the owner, an admin, or the app)`, security, params: GroupParams, body, response: { 200: Muted, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const entries = await im.groupMutes.mute(imApp, kind, request.params.id, request.body.usernames, request.body.mute_duration, operatorOf(request));
      return imData(request, imApp, entries.map((e) => ({ result: true, ...e })));
    },
  );

  const Unmuted = ImEnvelope(Type.Array(Type.Object({ result: Type.Boolean(), user: Type.String() }), { examples: [[{ result: true, user: 'ben' }]] }));
  app.delete(
    `/${segment}/:id/mute/:username`,
    { config: member, schema: { tags, summary: `Unmute members (${sdk('unmuteGroupMember', 'unmuteChatRoomMember')}; the owner, an admin, or the app)`, security, params: GroupMemberParams, response: { 200: Unmuted, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const names = await im.groupMutes.unmute(imApp, kind, request.params.id, namesOf(request.params.username), operatorOf(request));
      return imData(request, imApp, names.map((user) => ({ result: true, user })));
    },
  );

  const MuteList = ImEnvelope(Type.Array(Type.Object({ expire: Type.Integer(), user: Type.String() }), { examples: [[{ expire: -1, user: 'ben' }]] }));
  app.get(
    `/${segment}/:id/mute`,
    { config: member, schema: { tags, summary: `The members muted now, with when each mute ends (-1: never) (${sdk('getGroupMuteList', 'getChatRoomMuteList')}; the owner, an admin, or the app)`, security, params: GroupParams, response: { 200: MuteList, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.groupMutes.muted(imApp, kind, request.params.id, operatorOf(request)));
    },
  );

  const IsMuted = ImEnvelope(Type.Boolean({ examples: [false] }));
  app.get(
    `/sdk/${segment}/:id/mute/:username`,
    { config: { imAuth: { self: 'username' } }, schema: { tags, summary: `Whether the user is muted in the ${noun} (${sdk('isInGroupMutelist', 'isInChatRoomMutelist')}; the user, or the app)`, security, params: GroupMemberParams, response: { 200: IsMuted, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await im.groupMutes.isMuted(imApp, kind, request.params.id, request.params.username));
    },
  );

  const AllMuted = (mute: boolean) => ImEnvelope(Type.Object({ mute: Type.Boolean() }, { examples: [{ mute }] }));
  for (const [method, mute] of [
    ['post', true],
    ['delete', false],
  ] as const) {
    const summary = mute
      ? `Mute every member but the owner, the admins and the allow list (${sdk('disableSendGroupMsg', 'disableSendChatRoomMsg')}; the owner, an admin, or the app)`
      : `Lift the mute of all members (${sdk('enableSendGroupMsg', 'enableSendChatRoomMsg')})`;
    app[method](
      `/${segment}/:id/ban`,
      { config: member, schema: { tags, summary, security, params: GroupParams, 'x-no-body': true, response: { 200: AllMuted(mute), ...errors } } },
      async (request) => {
        const imApp = imAppOf(request);
        await im.groupMutes.muteAll(imApp, kind, request.params.id, mute, operatorOf(request));
        return imData(request, imApp, { mute });
      },
    );
  }
}

/** The block list (`blocks/users`) or the allow list (`white/users`). */
function listRoutes(app: Scope, im: ImModule, t: Target, list: 'block' | 'allow'): void {
  const { segment, kind, idField, noun, sdk, member } = t;
  const path = list === 'block' ? 'blocks' : 'white';
  const [added, removed] = list === 'block' ? ['add_blocks', 'remove_blocks'] : ['add_user_whitelist', 'remove_user_whitelist'];
  const what = list === 'block' ? 'the block list (members on it are removed and cannot come back)' : 'the allow list (not held back by a mute of all)';
  const change = async (request: FastifyRequest, id: string, names: string[], on: boolean) => {
    const imApp = imAppOf(request);
    const operator = operatorOf(request);
    const roles = im.groupRoles;
    const done =
      list === 'allow' ? await roles.allow(imApp, kind, id, names, on, operator) : on ? await roles.block(imApp, kind, id, names, operator) : await roles.unblock(imApp, kind, id, names, operator);
    return imData(request, imApp, done.map((user) => ({ result: true, action: on ? added : removed, user, [idField]: id })));
  };
  const body = Type.Object({ usernames: Names }, { examples: [{ usernames: ['ben', 'cal'] }] });
  app.post(`/${segment}/:id/${path}/users`, { config: member, schema: { tags, summary: `Put users on ${what}; the owner, an admin, or the app`, security, params: GroupParams, body, response: { 200: Listed(t, added), ...errors } } }, async (request) =>
    change(request, request.params.id, request.body.usernames, true),
  );
  if (list === 'block') {
    app.post(
      `/${segment}/:id/blocks/users/:username`,
      { config: member, schema: { tags, summary: `Put a user on ${what} (${sdk('blockGroupMember', 'blockChatRoomMember')})`, security, params: GroupMemberParams, 'x-no-body': true, response: { 200: Listed(t, added), ...errors } } },
      async (request) => change(request, request.params.id, [request.params.username], true),
    );
  }
  app.delete(
    `/${segment}/:id/${path}/users/:username`,
    { config: member, schema: { tags, summary: `Take users off ${list === 'block' ? 'the block list' : 'the allow list'}; the owner, an admin, or the app`, security, params: GroupMemberParams, response: { 200: Listed(t, removed), ...errors } } },
    async (request) => change(request, request.params.id, namesOf(request.params.username), false),
  );
  app.get(`/${segment}/:id/${path}/users`, { config: member, schema: { tags, summary: `The ${noun}'s ${list === 'block' ? 'block' : 'allow'} list; the owner, an admin, or the app`, security, params: GroupParams, response: { 200: NameList, ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await im.groupRoles.listOf(imApp, kind, request.params.id, list, operatorOf(request)));
  });
}

function noteRoutes(app: Scope, im: ImModule, t: Target): void {
  const { segment, kind, noun, sdk, member } = t;
  const Allowed = ImEnvelope(Type.Object({ member: Type.String(), white: Type.Boolean() }, { examples: [{ member: 'ben', white: true }] }));
  app.get(
    `/${segment}/:id/white/users/:username`,
    { config: member, schema: { tags, summary: `Whether a user is on the allow list (${sdk('isInGroupAllowlist', 'isInChatRoomAllowlist')}; any member)`, security, params: GroupMemberParams, response: { 200: Allowed, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      const white = await im.groupRoles.isAllowed(imApp, kind, request.params.id, request.params.username);
      return imData(request, imApp, { member: request.params.username.toLowerCase(), white });
    },
  );

  const Announcement = ImEnvelope(Type.Object({ announcement: Type.String() }, { examples: [{ announcement: 'Launch at noon' }] }));
  app.get(
    `/${segment}/:id/announcement`,
    { config: member, schema: { tags, summary: `The ${noun}'s announcement (${sdk('fetchGroupAnnouncement', 'fetchChatRoomAnnouncement')}; any member)`, security, params: GroupParams, response: { 200: Announcement, ...errors } } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, { announcement: await im.groupMutes.announcement(imApp, kind, request.params.id) });
    },
  );

  const Updated = ImEnvelope(Type.Object({ id: Type.String(), result: Type.Boolean() }, { examples: [{ id: GROUP, result: true }] }));
  const body = Type.Object({ announcement: Type.String({ maxLength: MAX_ANNOUNCEMENT }) }, { examples: [{ announcement: 'Launch at noon' }] });
  app.post(
    `/${segment}/:id/announcement`,
    {
      config: member,
      schema: { tags, summary: `Replace the announcement (${sdk('updateGroupAnnouncement', 'updateChatRoomAnnouncement')}; the owner, an admin, or the app); the members get \`updateAnnouncement\``, security, params: GroupParams, body, response: { 200: Updated, ...errors } },
    },
    async (request) => {
      const imApp = imAppOf(request);
      await im.groupMutes.setAnnouncement(imApp, kind, request.params.id, request.body.announcement, operatorOf(request));
      return imData(request, imApp, { id: request.params.id, result: true });
    },
  );
}
