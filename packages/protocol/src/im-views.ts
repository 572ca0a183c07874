/**
 * What the IM routes answer inside their envelope (`data` or `entities`), as schemas: the server
 * serializes with them and the OpenAPI document shows them. Easemob's shapes (contract 4).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { StoredKeyInfo } from './callbacks.js';
import { CALLBACK_EXAMPLES, IM_EXAMPLES as E } from './examples.js';
import { AppTokenResult, ImEntitiesEnvelope, ImEnvelope, UserTokenResult } from './im.js';

/** `POST /{org}/{app}/token`: an app-admin token, or a user token with its user. */
export const TokenResult = Type.Union([AppTokenResult, UserTokenResult], { examples: [E.token] });

/** A member of a group or room: `{owner}` for its owner, `{member}` for the others. */
export const GroupAffiliation = Type.Object({ owner: Type.Optional(Type.String()), member: Type.Optional(Type.String()) });

export const GroupView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    public: Type.Boolean(),
    maxusers: Type.Integer(),
    owner: Type.String(),
    created: Type.Integer(),
    membersonly: Type.Boolean({ description: 'Joining needs the owner (`approval`)' }),
    allowinvites: Type.Boolean({ description: 'Members may invite' }),
    invite_need_confirm: Type.Boolean(),
    custom: Type.String(),
    avatar: Type.String(),
    affiliations_count: Type.Integer(),
    affiliations: Type.Array(GroupAffiliation),
  },
  { examples: [E.group] },
);
export type GroupView = Static<typeof GroupView>;
/** `GET /chatgroups/{id}`: Easemob answers a list of one. */
export const GroupViews = Type.Array(GroupView, { examples: [[E.group]] });

export const GroupCreated = Type.Object({ groupid: Type.String() }, { examples: [{ groupid: E.group.id }] });
export const RoomCreated = Type.Object({ id: Type.String() }, { examples: [{ id: E.group.id }] });

/** The group or room (`groupid` or `id`, as `idField` names it) a change was made to. */
export const GroupDeleted = (idField: string) => Type.Object({ success: Type.Boolean(), [idField]: Type.String() }, { examples: [{ success: true, [idField]: E.group.id }] });
export const MembershipChanged = (idField: string) =>
  Type.Object(
    { result: Type.Boolean(), action: Type.String(), [idField]: Type.String(), user: Type.String() },
    { examples: [{ result: true, action: 'add_member', [idField]: E.group.id, user: 'bob' }] },
  );
/** One removal (an object), or several (`DELETE …/users/a,b`: an array). */
export const MembershipChanges = (idField: string) =>
  Type.Union([MembershipChanged(idField), Type.Array(MembershipChanged(idField))], { examples: [{ result: true, action: 'remove_member', [idField]: E.group.id, user: 'bob' }] });
export const GroupMembers = Type.Array(GroupAffiliation, { examples: [E.group.affiliations] });

/** Message ids by receiver (`/messages/...`), or `success` by receiver (legacy `/messages`). */
export const SentMessages = Type.Record(Type.String(), Type.String(), { examples: [{ bob: '1234567890123' }] });

export const OfflineCount = Type.Record(Type.String(), Type.Integer(), { examples: [{ alice: 2 }] });
export const OfflineStatus = Type.Record(Type.String(), Type.Union([Type.Literal('delivered'), Type.Literal('undelivered')]), {
  examples: [{ '1234567890123': 'delivered' }],
});

export const SensitiveWords = Type.Object({ words: Type.Array(Type.String()) }, { examples: [E.words] });

/** `POST /callbacks/storage/retry`: whether the re-send was queued. */
export const RetryResult = Type.Union([Type.Literal('success'), Type.Literal('failure')], { examples: ['success'] });

/** A page of `entities` with the `cursor` of the next page (absent on the last). */
export const ImEntitiesPage = <T extends TSchema>(entity: T) => {
  const envelope = ImEntitiesEnvelope(entity);
  return Type.Object(
    { ...envelope.properties, cursor: Type.Optional(Type.String({ description: 'pass as `cursor` for the next page' })) },
    { examples: (envelope as { examples?: unknown[] }).examples ?? [] },
  );
};

/** `GET /callbacks/storage/info`: the keys of the exception store. */
export const StoredKeys = Type.Array(StoredKeyInfo, { examples: [[CALLBACK_EXAMPLES.storedKey]] });

/** The keys in their envelope, with the IANA zone their `yyyyMMddHHmm` is read in (beyond the spec). */
export const StoredKeysEnvelope = (() => {
  const envelope = ImEnvelope(StoredKeys);
  const [example] = ((envelope as { examples?: object[] }).examples ?? []) as object[];
  return Type.Object(
    { ...envelope.properties, date_key_zone: Type.String({ description: 'IANA zone of the date keys (PARLEY_CALLBACK_DATE_KEY_ZONE)' }) },
    { examples: [{ ...example, date_key_zone: 'UTC' }] },
  );
})();
