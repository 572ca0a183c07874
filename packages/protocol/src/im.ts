/**
 * Wire schemas of the IM surface (contract sections 1 and 4.1–4.3): apps, tokens, users, groups,
 * chat rooms, messages over REST and the JSON frames of the socket.
 *
 * Message bodies are described loosely here (an object per `type`) and checked field by field by
 * the server, so a 400 can name the exact field that is wrong.
 */
import type { ImGroupEventFrame } from './im-group-events.js';
import { Type, type Static, type TSchema } from 'typebox';
import { IM_EXAMPLES as E } from './examples.js';
import { exampleOf } from './accounts.js';

/** Limits the contract fixes (4.1, 4.3). */
export const IM_LIMITS = {
  usernameMaxLength: 64,
  /** Receivers per REST call by target kind. */
  receivers: { users: 600, chatgroups: 3, chatrooms: 10 },
  /**
   * Largest message, bytes: a REST request body, a JSON-socket frame, and the message itself
   * (`{bodies, ext}` as JSON) whatever protocol it came by.
   */
  messageBytes: 5 * 1024,
  /** Users per batch registration. */
  usersPerBatch: 60,
  sensitiveWords: 1000,
} as const;

/** `a-z0-9_.-`, 1–64, after folding upper case to lower case. */
export const IM_USERNAME_PATTERN = /^[a-z0-9_.-]{1,64}$/;

export const IM_BODY_TYPES = ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'] as const;
export type ImBodyType = (typeof IM_BODY_TYPES)[number];

/** Fields every IM success envelope carries (contract 1). */
export const imEnvelopeFields = () => ({
  path: Type.String(),
  uri: Type.String(),
  timestamp: Type.Integer(),
  organization: Type.String(),
  application: Type.String(),
  action: Type.String(),
  duration: Type.Integer(),
  applicationName: Type.String(),
});

/** Example values of the envelope fields, for the examples of the document. */
const IM_ENVELOPE_EXAMPLE = {
  path: '/users',
  uri: 'http://127.0.0.1:8080/acme/shop/users',
  timestamp: 1767225600000,
  organization: 'acme',
  application: '1f0c2b1e-6a51-4d1e-9d7e-2b8f2f7d2c11',
  action: 'post',
  duration: 3,
  applicationName: 'shop',
};

/** Success envelope of the IM surface (contract 1); an example of `data` becomes the envelope's. */
export const ImEnvelope = <T extends TSchema>(data: T) => {
  const example = exampleOf(data);
  return Type.Object({ ...imEnvelopeFields(), data }, example === undefined ? {} : { examples: [{ ...IM_ENVELOPE_EXAMPLE, data: example }] });
};

export const ImEntitiesEnvelope = <T extends TSchema>(entity: T) => {
  const example = exampleOf(entity);
  return Type.Object({ ...imEnvelopeFields(), entities: Type.Array(entity) }, example === undefined ? {} : { examples: [{ ...IM_ENVELOPE_EXAMPLE, entities: [example] }] });
};

/** The IM error envelope (contract 1), `ImError` in the OpenAPI document. */
export const ImErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'Stable code from the error list (docs/errors.md)' }),
    error_description: Type.String(),
    exception: Type.String(),
    timestamp: Type.Integer(),
    duration: Type.Integer(),
  },
  { examples: [{ error: 'illegal_argument', error_description: 'groupname must be a non-empty string', exception: 'IllegalArgumentException', timestamp: 1767225600000, duration: 0 }] },
);

export const OrgAppParams = Type.Object({ org: Type.String({ minLength: 1, maxLength: 64 }), app: Type.String({ minLength: 1, maxLength: 64 }) });
export type OrgAppParams = Static<typeof OrgAppParams>;

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' });

export const CreateAppRequest = Type.Object({ org_name: Name, app_name: Name }, { additionalProperties: false, examples: [E.createApp] });
export type CreateAppRequest = Static<typeof CreateAppRequest>;

export const AppCreated = Type.Object({
  appkey: Type.String(),
  application: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String(),
}, { examples: [E.appCreated] });
export type AppCreated = Static<typeof AppCreated>;

const Ttl = Type.Integer({ minimum: 1, maximum: 365 * 24 * 3600, description: 'Token lifetime, seconds (default 7 days)' });

export const TokenRequest = Type.Union([
  Type.Object({ grant_type: Type.Literal('client_credentials'), client_id: Type.String({ minLength: 1, maxLength: 128 }), client_secret: Type.String({ minLength: 1, maxLength: 256 }), ttl: Type.Optional(Ttl) }),
  Type.Object({ grant_type: Type.Literal('password'), username: Type.String({ minLength: 1, maxLength: 128 }), password: Type.String({ minLength: 1, maxLength: 256 }), ttl: Type.Optional(Ttl) }),
], { examples: [E.tokenRequest] });
export type TokenRequest = Static<typeof TokenRequest>;

export const ImUserView = Type.Object({
  uuid: Type.String(),
  type: Type.Literal('user'),
  created: Type.Integer(),
  modified: Type.Integer(),
  username: Type.String(),
  nickname: Type.Optional(Type.String()),
  activated: Type.Boolean(),
}, { examples: [E.user] });
export type ImUserView = Static<typeof ImUserView>;

export const AppTokenResult = Type.Object({ access_token: Type.String(), expires_in: Type.Integer(), application: Type.String() });
export type AppTokenResult = Static<typeof AppTokenResult>;
export const UserTokenResult = Type.Object({ access_token: Type.String(), expires_in: Type.Integer(), user: ImUserView });
export type UserTokenResult = Static<typeof UserTokenResult>;

export const NewImUser = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 128 }),
    nickname: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type NewImUser = Static<typeof NewImUser>;
export const CreateUsersRequest = Type.Union([NewImUser, Type.Array(NewImUser, { minItems: 1, maxItems: IM_LIMITS.usersPerBatch })], { examples: [E.newUser] });
export type CreateUsersRequest = Static<typeof CreateUsersRequest>;

export const UsernameParams = Type.Object({ org: Type.String(), app: Type.String(), username: Type.String({ minLength: 1, maxLength: 128 }) });
export type UsernameParams = Static<typeof UsernameParams>;

const Members = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 500 });

export const CreateGroupRequest = Type.Object(
  {
    groupname: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    desc: Type.Optional(Type.String({ maxLength: 512, description: "The Web SDK's name for `description`" })),
    public: Type.Optional(Type.Boolean({ description: 'Required with the app token; a user token defaults to false' })),
    maxusers: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    owner: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Required with the app token; a user token's group is owned by its user" })),
    members: Type.Optional(Members),
    approval: Type.Optional(Type.Boolean({ description: 'Joining needs the owner (default false)' })),
    allowinvites: Type.Optional(Type.Boolean({ description: 'Members may invite (default false: only the owner)' })),
    invite_need_confirm: Type.Optional(Type.Boolean({ description: 'Stored and reported; invited users are added at once' })),
    inviteNeedConfirm: Type.Optional(Type.Boolean()),
    custom: Type.Optional(Type.String({ maxLength: 1024 })),
    avatar: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { description: "Unknown fields are accepted and ignored, as Easemob's", examples: [E.createGroup] },
);
export type CreateGroupRequest = Static<typeof CreateGroupRequest>;

export const CreateChatroomRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.String({ maxLength: 512 }),
    maxusers: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    owner: Type.String({ minLength: 1, maxLength: 128 }),
    members: Type.Optional(Members),
  },
  { additionalProperties: false, examples: [E.createRoom] },
);
export type CreateChatroomRequest = Static<typeof CreateChatroomRequest>;

export const GroupParams = Type.Object({ org: Type.String(), app: Type.String(), id: Type.String({ pattern: '^\\d{1,20}$' }) });
export type GroupParams = Static<typeof GroupParams>;
export const GroupMemberParams = Type.Object({ org: Type.String(), app: Type.String(), id: Type.String({ pattern: '^\\d{1,20}$' }), username: Type.String({ minLength: 1, maxLength: 128 }) });
export type GroupMemberParams = Static<typeof GroupMemberParams>;

export const BodyType = Type.Union(IM_BODY_TYPES.map((t) => Type.Literal(t)));

/** One message body in the socket and callback shape: `{type, ...fields}`. */
export const ImMessageBody = Type.Object({ type: Type.String() }, { additionalProperties: true });
export interface ImMessageBody {
  type: string;
  [field: string]: unknown;
}

/** `POST /{org}/{app}/messages/users|chatgroups|chatrooms` */
export const SendMessageRequest = Type.Object({
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  to: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1 }),
  type: Type.String(),
  body: Type.Record(Type.String(), Type.Unknown()),
  ext: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  routetype: Type.Optional(Type.String({ maxLength: 32 })),
  sync_device: Type.Optional(Type.Boolean()),
}, { examples: [E.send] });
export type SendMessageRequest = Static<typeof SendMessageRequest>;

/** Legacy `POST /{org}/{app}/messages` */
export const LegacySendMessageRequest = Type.Object({
  target_type: Type.Union([Type.Literal('users'), Type.Literal('chatgroups'), Type.Literal('chatrooms')]),
  target: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1 }),
  msg: Type.Object({ type: Type.String() }, { additionalProperties: true }),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  ext: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { examples: [E.legacySend] });
export type LegacySendMessageRequest = Static<typeof LegacySendMessageRequest>;

export const SensitiveWordsRequest = Type.Object(
  { words: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: IM_LIMITS.sensitiveWords }) },
  { additionalProperties: false, examples: [E.words] },
);
export type SensitiveWordsRequest = Static<typeof SensitiveWordsRequest>;

export const OfflineStatusParams = Type.Object({ org: Type.String(), app: Type.String(), username: Type.String({ minLength: 1, maxLength: 128 }), msgId: Type.String({ pattern: '^\\d{1,16}$' }) });
export type OfflineStatusParams = Static<typeof OfflineStatusParams>;

// --- Socket frames (contract 4.3) -----------------------------------------------------------------

export type ImChatType = 'chat' | 'groupchat' | 'chatroom';

export interface ImSendFrame {
  op: 'send';
  id: string;
  chat_type: ImChatType;
  to: string;
  bodies: ImMessageBody[];
  ext?: Record<string, unknown>;
  /** For receivers online now only (typing indicators): never stored for offline ones. */
  online_only?: boolean;
}
export interface ImJoinFrame {
  op: 'join' | 'leave';
  room: string;
  id?: string;
}
export interface ImPingFrame {
  op: 'ping';
  id?: string;
}
/** A read, delivery or conversation receipt a client sends (to the sender of the message). */
export interface ImReceiptClientFrame {
  op: 'receipt';
  id?: string;
  kind: ImReceiptKind;
  /** `chat` (default) or `groupchat` (read receipts of group messages: `to` is the group id). */
  chat_type?: 'chat' | 'groupchat';
  /** The user told (`chat`), or the group id. */
  to: string;
  /** The message acknowledged (`read`, `delivered`). */
  msg_id?: string;
  /** Group read receipts: free text for the sender (at most 1024 characters). */
  ack_content?: string;
}
/** Recalls one of the user's own messages. */
export interface ImRecallClientFrame {
  op: 'recall';
  id?: string;
  msg_id: string;
  /** Easemob's `recallMessageExtensionInfo`: text the receivers get with the recall. */
  ext?: string;
}
/** Edits one of the user's own text or custom messages: its body (and `ext` when given). */
export interface ImEditClientFrame {
  op: 'edit';
  id?: string;
  msg_id: string;
  body: ImMessageBody;
  ext?: Record<string, unknown>;
}
export type ImClientFrame = ImSendFrame | ImJoinFrame | ImPingFrame | ImReceiptClientFrame | ImRecallClientFrame | ImEditClientFrame;

export type ImReceiptKind = 'read' | 'delivered' | 'channel';

export interface ImAckFrame {
  op: 'ack';
  id: string;
  msg_id?: string;
  timestamp: number;
}
export interface ImErrorFrame {
  op: 'error';
  id?: string;
  error: string;
  error_description: string;
}
export interface ImMessageFrame {
  op: 'message';
  msg_id: string;
  from: string;
  to: string;
  chat_type: ImChatType;
  group_id?: string;
  timestamp: number;
  /** Present on messages that were stored while the user was offline. */
  offline?: boolean;
  /** Present on messages sent for online receivers only (typing indicators): never stored. */
  online_only?: boolean;
  /**
   * Internal, never written to a client: on the copy of a user's own message for their other
   * devices, the connection that sent it (which skips it); '' when every device gets it.
   */
  device?: string;
  payload: { bodies: ImMessageBody[]; ext: Record<string, unknown> };
}
export interface ImPongFrame {
  op: 'pong';
  id?: string;
  timestamp: number;
}
/** A receipt for the user: `from` read (or received) `msg_id`, or read the whole conversation (`channel`). */
export interface ImReceiptFrame {
  op: 'receipt';
  /** The receipt's own id. */
  id: string;
  kind: ImReceiptKind;
  from: string;
  /** The user told, or the group id (`groupchat`). */
  to: string;
  chat_type: 'chat' | 'groupchat';
  msg_id?: string;
  group_id?: string;
  /** Group read receipts: how many members have read the message so far. */
  read_count?: number;
  ack_content?: string;
  timestamp: number;
}
/** A message was recalled: clients remove it. */
export interface ImRecallFrame {
  op: 'recall';
  /** The recall's own id. */
  id: string;
  msg_id: string;
  /** Who recalled it (the sender, or `admin`). */
  from: string;
  to: string;
  chat_type: ImChatType;
  group_id?: string;
  ext?: string;
  timestamp: number;
  /** Internal, never written to a client: the connection that recalled it (which skips it). */
  device?: string;
}
/** A message was edited: clients replace its content. */
export interface ImEditFrame {
  op: 'edit';
  /** The edit's own id. */
  id: string;
  msg_id: string;
  /** The message's sender, receiver and chat type, as sent. */
  from: string;
  to: string;
  chat_type: ImChatType;
  group_id?: string;
  /** The message as it is now. */
  payload: { bodies: ImMessageBody[]; ext: Record<string, unknown> };
  /** Edits so far, this one included. */
  count: number;
  edit_time: number;
  /** When the message was sent. */
  timestamp: number;
  /** Internal, never written to a client: the connection that edited it (which skips it). */
  device?: string;
}
/**
 * A contact event for the user (`to`): `invited` (`from` asks to become a contact), `agreed` (`from`
 * accepted the user's request), `refused` (`from` declined it), `added` (they are contacts now),
 * `deleted` (`from` removed the user from their contacts).
 */
export interface ImRosterFrame {
  op: 'roster';
  event: 'invited' | 'agreed' | 'refused' | 'added' | 'deleted';
  from: string;
  to: string;
  reason?: string;
  timestamp: number;
}
export type ImServerFrame = ImAckFrame | ImErrorFrame | ImMessageFrame | ImPongFrame | ImReceiptFrame | ImRecallFrame | ImEditFrame | ImRosterFrame | ImGroupEventFrame;
