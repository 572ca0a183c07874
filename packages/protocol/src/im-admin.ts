/**
 * Wire schemas of IM administration (contract 6.2), in Easemob's shapes: the system admin's app
 * list and secret rotation, paged user, group and chat-room lists, and their edits.
 */
import { Type, type Static, type TObjectOptions, type TSchema } from 'typebox';
import { imEnvelopeFields as appEnvelopeFields } from './im.js';

const Cursor = Type.String({ minLength: 1, maxLength: 200, description: 'Opaque; from the previous page' });
const PageLimit = Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page, 1-100 (default 10)' });

const Search = Type.String({
  maxLength: 128,
  description: 'Only the items that match, case-insensitively: users whose username or nickname contains it, groups and chat rooms whose name contains it or whose id it is',
});

/** `?limit=&cursor=&q=` of the paged lists (other query fields, such as `access_token`, are allowed). */
export const PageQuery = Type.Object({ limit: Type.Optional(PageLimit), cursor: Type.Optional(Cursor), q: Type.Optional(Search) });
export type PageQuery = Static<typeof PageQuery>;

/** `?pagesize=&pagenum=` of `joined_chatgroups` (Easemob's paging for this list). */
export const JoinedGroupsQuery = Type.Object(
  {
    pagesize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Groups per page, 1-100; without pagesize and pagenum, up to 500' })),
    pagenum: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page number from 1' })),
  },
);
export type JoinedGroupsQuery = Static<typeof JoinedGroupsQuery>;

/** A page of `entities` with `count` and, when more follow, `cursor`. */
export const ImCountedPage = <T extends TSchema>(entity: T, options?: TObjectOptions) =>
  Type.Object({ ...appEnvelopeFields(), entities: Type.Array(entity), count: Type.Integer(), cursor: Type.Optional(Type.String()) }, options);

/** A page of `data` with `count` and, when more follow, `cursor`. */
export const ImDataPage = <T extends TSchema>(item: T, options?: TObjectOptions) =>
  Type.Object({ ...appEnvelopeFields(), data: Type.Array(item), count: Type.Integer(), cursor: Type.Optional(Type.String()) }, options);

/** One `data` object in the envelope. */
export const ImDataOf = <T extends TSchema>(data: T, options?: TObjectOptions) => Type.Object({ ...appEnvelopeFields(), data }, options);

/** One-element `entities` in the envelope. */
export const ImEntitiesOf = <T extends TSchema>(entity: T, options?: TObjectOptions) => Type.Object({ ...appEnvelopeFields(), entities: Type.Array(entity) }, options);

/** An answer that only names what was done (`action`), as Easemob's password change. */
export const ImActionEnvelope = (options?: TObjectOptions) => Type.Object(appEnvelopeFields(), options);

// --- Apps (system admin) -------------------------------------------------------------------------

export const AppSummary = Type.Object({
  appkey: Type.String(),
  org_name: Type.String(),
  app_name: Type.String(),
  application: Type.String({ description: 'App UUID' }),
  client_id: Type.String(),
  created: Type.Integer(),
});
export type AppSummary = Static<typeof AppSummary>;

export const AppList = Type.Object(
  {
    path: Type.String(),
    uri: Type.String(),
    timestamp: Type.Integer(),
    action: Type.String(),
    duration: Type.Integer(),
    entities: Type.Array(AppSummary),
    count: Type.Integer(),
  },
  {
    examples: [
      {
        path: '/management/apps',
        uri: 'http://127.0.0.1:8080/management/apps',
        timestamp: 1764000000000,
        action: 'get',
        duration: 1,
        entities: [{ appkey: 'demo#demo', org_name: 'demo', app_name: 'demo', application: '8be024f0-0000-4000-8000-5d598d5f8402', client_id: 'YXA6c2VjcmV0LWNsaWVudC1pZA', created: 1764000000000 }],
        count: 1,
      },
    ],
  },
);
export type AppList = Static<typeof AppList>;

export const AppPathParams = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 64 }),
  app: Type.String({ minLength: 1, maxLength: 64 }),
});
export type AppPathParams = Static<typeof AppPathParams>;

// --- Users ----------------------------------------------------------------------------------------

export const UpdateUserRequest = Type.Object(
  { nickname: Type.String({ maxLength: 100, description: 'Shown in notifications; "" clears it' }) },
  { additionalProperties: false, examples: [{ nickname: 'Alice' }] },
);
export type UpdateUserRequest = Static<typeof UpdateUserRequest>;

export const ImChangePasswordRequest = Type.Object(
  { newpassword: Type.String({ minLength: 1, maxLength: 128, description: 'At least 6 characters' }) },
  { additionalProperties: false, examples: [{ newpassword: 'new-secret-42' }] },
);
export type ImChangePasswordRequest = Static<typeof ImChangePasswordRequest>;

// --- Groups and chat rooms ------------------------------------------------------------------------

export const GroupListItem = Type.Object({
  owner: Type.String(),
  groupid: Type.String(),
  /** Number of members, the owner included. */
  affiliations: Type.Integer(),
  type: Type.Literal('group'),
  /** ms, as a string (Easemob's type). */
  last_modified: Type.String(),
  groupname: Type.String(),
});
export type GroupListItem = Static<typeof GroupListItem>;

export const ChatroomListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owner: Type.String(),
  affiliations_count: Type.Integer(),
});
export type ChatroomListItem = Static<typeof ChatroomListItem>;

/** A joined group: Easemob's `groupid`/`groupname`, and `id`/`name`/`permission` the Web SDK reads (v3). */
export const JoinedGroup = Type.Object({
  groupid: Type.String(),
  groupname: Type.String(),
  id: Type.String(),
  name: Type.String(),
  permission: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
  disabled: Type.Boolean(),
});
export type JoinedGroup = Static<typeof JoinedGroup>;

const MaxUsers = Type.Integer({ minimum: 1, maximum: 100_000, description: 'Members at most, the owner included; not below the current members' });

export const UpdateGroupRequest = Type.Object(
  {
    groupname: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    maxusers: Type.Optional(MaxUsers),
    public: Type.Optional(Type.Boolean()),
    membersonly: Type.Optional(Type.Boolean({ description: 'Joining needs the owner' })),
    allowinvites: Type.Optional(Type.Boolean({ description: 'Members may invite' })),
    custom: Type.Optional(Type.String({ maxLength: 1024 })),
    avatar: Type.Optional(Type.String({ maxLength: 1024 })),
    newowner: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Gives the group to this member (alone: other fields are then ignored)' })),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ groupname: 'Support team', description: 'Second line', maxusers: 300 }] },
);
export type UpdateGroupRequest = Static<typeof UpdateGroupRequest>;

export const UpdateChatroomRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    maxusers: Type.Optional(MaxUsers),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ name: 'Launch day', description: 'Live questions', maxusers: 500 }] },
);
export type UpdateChatroomRequest = Static<typeof UpdateChatroomRequest>;

/** Which fields an edit changed, each `true` (Easemob's answer; a room's name is `groupname`). */
export const GroupUpdated = Type.Object({
  groupname: Type.Optional(Type.Boolean()),
  description: Type.Optional(Type.Boolean()),
  maxusers: Type.Optional(Type.Boolean()),
  public: Type.Optional(Type.Boolean()),
  membersonly: Type.Optional(Type.Boolean()),
  allowinvites: Type.Optional(Type.Boolean()),
  custom: Type.Optional(Type.Boolean()),
  avatar: Type.Optional(Type.Boolean()),
  newowner: Type.Optional(Type.Boolean()),
});
export type GroupUpdated = Static<typeof GroupUpdated>;
