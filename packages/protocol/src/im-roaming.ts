/**
 * History roaming and the server conversation list of Easemob's Web SDK (contract 6.8): the
 * bodies the SDK sends and the answers it parses.
 */
import { Type, type Static } from 'typebox';

export const RoamingParams = Type.Object({ org: Type.String(), app: Type.String(), username: Type.String({ minLength: 1, maxLength: 128 }) });
export type RoamingParams = Static<typeof RoamingParams>;

const Nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** `getHistoryMessages`' body; fields the SDK sends that Parley does not read (`end`) are accepted. */
export const RoamingRequest = Type.Object(
  {
    queue: Type.String({ minLength: 1, maxLength: 200, description: '`peer@easemob.com` or `groupid@conference.easemob.com`' }),
    start: Nullable(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
    pull_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    is_positive: Type.Optional(Type.Boolean({ description: 'true: oldest first ("down"); false: newest first ("up")' })),
    msgType: Nullable(Type.String({ maxLength: 200 })),
    end: Type.Optional(Type.Unknown()),
    startTime: Nullable(Type.Integer({ minimum: 0 })),
    endTime: Nullable(Type.Integer({ minimum: 0 })),
    userId: Nullable(Type.String({ maxLength: 128 })),
  },
  { examples: [{ queue: 'ben@easemob.com', start: -1, pull_number: 20, is_positive: false, msgType: '', end: -1, startTime: null, endTime: null, userId: null }] },
);
export type RoamingRequest = Static<typeof RoamingRequest>;

export const RoamingResult = Type.Object(
  {
    msgs: Type.Array(Type.Object({ msg: Type.String({ description: 'A protobuf `Meta`, base64' }) })),
    is_last: Type.Boolean(),
    next_key: Type.String(),
  },
  { examples: [{ msgs: [{ msg: 'CJ...base64 Meta...' }], is_last: true, next_key: '1767225600000001' }] },
);
export type RoamingResult = Static<typeof RoamingResult>;

export const ConversationListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  need_mark: Type.Optional(Type.Boolean()),
  needEmptySession: Type.Optional(Type.Boolean()),
  is_top: Type.Optional(Type.Boolean({ description: 'true: only pinned conversations' })),
});
export type ConversationListQuery = Static<typeof ConversationListQuery>;

/** One conversation as the SDK parses it; `meta.payload` is the last message's JSON text. */
export const ConversationInfo = Type.Object({
  session_to: Type.String(),
  session_type: Type.Union([Type.Literal('chat'), Type.Literal('groupchat')]),
  unread_num: Type.Integer(),
  is_top: Type.Boolean(),
  update_top_status_time: Type.Integer(),
  marks: Type.Array(Type.String(), { description: 'The user\'s Easemob marks on the conversation: `mark_0` … `mark_19`' }),
  meta: Type.Object({ id: Type.String(), from: Type.String(), to: Type.String(), timestamp: Type.Integer(), payload: Type.String() }),
});

export type ConversationInfo = Static<typeof ConversationInfo>;

export const ConversationListResult = Type.Object(
  { cursor: Type.String(), channel_infos: Type.Array(ConversationInfo) },
  {
    examples: [
      {
        cursor: '',
        channel_infos: [
          {
            session_to: 'ben',
            session_type: 'chat',
            unread_num: 2,
            is_top: false,
            update_top_status_time: 0,
            marks: ['mark_0'],
            meta: { id: '1767225600000001', from: 'ben', to: 'ann', timestamp: 1767225600000, payload: '{"bodies":[{"type":"txt","msg":"hi"}],"ext":{},"from":"ben","to":"ann","type":"chat"}' },
          },
        ],
      },
    ],
  },
);
export type ConversationListResult = Static<typeof ConversationListResult>;

/** `deleteConversation`'s body: the peer or group, its type, and whether its history goes too. */
export const DeleteConversationRequest = Type.Object(
  {
    channel: Type.String({ minLength: 1, maxLength: 128 }),
    type: Type.Union([Type.Literal('chat'), Type.Literal('groupChat'), Type.Literal('groupchat')]),
    delete_roam: Type.Optional(Type.Boolean()),
  },
  { examples: [{ channel: 'ben', type: 'chat', delete_roam: true }] },
);
export type DeleteConversationRequest = Static<typeof DeleteConversationRequest>;

const ConversationType = Type.Union([Type.Literal('chat'), Type.Literal('groupChat'), Type.Literal('groupchat')]);

/** `pinConversation`'s POST body: the peer or group and its type. */
export const PinConversationRequest = Type.Object(
  { type: ConversationType, to: Type.String({ minLength: 1, maxLength: 128 }) },
  { examples: [{ type: 'chat', to: 'ben' }] },
);
export type PinConversationRequest = Static<typeof PinConversationRequest>;

/** `pinConversation`'s DELETE query: the peer or group and its type (and the SDK's `resource`). */
export const UnpinConversationQuery = Type.Object({
  type: ConversationType,
  to: Type.String({ minLength: 1, maxLength: 128 }),
  resource: Type.Optional(Type.String({ maxLength: 128 })),
});
export type UnpinConversationQuery = Static<typeof UnpinConversationQuery>;

/** A pin's answer: whether the conversation is pinned now, and since when (ms; 0 when not). */
export const PinConversationResult = Type.Object(
  { is_top: Type.Boolean(), update_top_status_time: Type.Integer() },
  { examples: [{ is_top: true, update_top_status_time: 1767225600000 }] },
);
export type PinConversationResult = Static<typeof PinConversationResult>;

/** A conversation a mark call names: the peer or group and its type (the SDK sends `chat` or `groupchat`). */
const MarkTarget = Type.Object({ type: ConversationType, to: Type.String({ minLength: 1, maxLength: 128 }) });

/** `addConversationMark` / `removeConversationMark`'s body: one mark, on up to 20 conversations. */
export const MarkConversationRequest = Type.Object(
  {
    mark: Type.String({ maxLength: 16, description: '`mark_0` … `mark_19`' }),
    targets: Type.Array(MarkTarget, { minItems: 1, maxItems: 20 }),
  },
  { examples: [{ mark: 'mark_0', targets: [{ type: 'chat', to: 'ben' }, { type: 'groupchat', to: '1767225600000001' }] }] },
);
export type MarkConversationRequest = Static<typeof MarkConversationRequest>;

/** A mark call's answer: the conversations it left alone (none: every one named is marked or unmarked). */
export const MarkConversationResult = Type.Object(
  { ignore: Type.Array(MarkTarget) },
  { examples: [{ ignore: [] }] },
);
export type MarkConversationResult = Static<typeof MarkConversationResult>;

/** `getServerConversationsByFilter`'s query: the mark, and the list's paging. */
export const MarkSearchQuery = Type.Object({
  mark: Type.String({ maxLength: 16, description: '`mark_0` … `mark_19`' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  need_mark: Type.Optional(Type.Boolean()),
  needEmptySession: Type.Optional(Type.Boolean()),
});
export type MarkSearchQuery = Static<typeof MarkSearchQuery>;
