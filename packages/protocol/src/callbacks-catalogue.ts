/**
 * The event catalogue of post-send rules (contract 6.7b): the records of operations other than
 * messages, each in the shape Easemob documents for it (`easemob/easemob-doc`,
 * docs/document/server-side/callback_*.md), signed and delivered as message records are (4.5).
 * A rule receives them when its `event_types` lists `roster`, `userStatus`, `recall` or `read_ack`.
 *
 * A receiver tells them apart by `eventType` (`userStatus`) and then `chat_type` (`roster`,
 * `recall`, `read_ack`; `chat` and `groupchat` are messages, callbacks.ts).
 */
import { Type, type Static } from 'typebox';

/** `user@domain` of a user as Easemob writes it in records: `{appkey}_{username}@easemob.com`. */
export const callbackUserJid = (appkey: string, username: string): string => `${appkey}_${username}@easemob.com`;
/** A group's (or the receiver's, for a one-to-one read ack) channel: `{appkey}_{id}@conference.easemob.com`. */
export const callbackChannelJid = (appkey: string, id: string): string => `${appkey}_${id}@conference.easemob.com`;

export const ROSTER_OPERATIONS = ['add', 'accept', 'remote_accept', 'decline', 'remote_decline', 'remove', 'ban', 'allow'] as const;
export type RosterOperation = (typeof ROSTER_OPERATIONS)[number];

const common = {
  callId: Type.String({ description: '{appkey}_{uuid}' }),
  timestamp: Type.Integer({ description: 'Unix ms at which Parley carried out the operation' }),
};
const signature = {
  appkey: Type.String({ description: 'org#app' }),
  securityVersion: Type.String(),
  security: Type.String({ description: 'md5(callId + secret + timestamp), lower-case hex' }),
};
const Empty = Type.Object({}, { additionalProperties: false });

/** A contact operation (`callback_contact.md`). */
export const RosterCallbackRecord = Type.Object({
  ...common,
  eventType: Type.Literal('chat'),
  chat_type: Type.Literal('roster'),
  from: Type.String({ description: 'the user who did it (remote_accept, remote_decline: the user who answered), as {appkey}_{user}@easemob.com' }),
  to: Type.String({ description: 'the other user (accept, decline: the user who answered)' }),
  msg_id: Type.String({ description: 'id of the operation; the two records of one answer share it' }),
  payload: Type.Object({
    operation: Type.Union([
      Type.Literal('add'),
      Type.Literal('accept'),
      Type.Literal('remote_accept'),
      Type.Literal('decline'),
      Type.Literal('remote_decline'),
      Type.Literal('remove'),
      Type.Literal('ban'),
      Type.Literal('allow'),
    ]),
    reason: Type.Optional(Type.String({ description: 'add: the request text' })),
    status: Type.Optional(Type.Object({ error_code: Type.String() }, { description: 'ban, allow: {"error_code":"ok"}' })),
  }),
  ...signature,
});
export type RosterCallbackRecord = Static<typeof RosterCallbackRecord>;

/** A socket logged in or out (`callback_login_logout.md`). */
export const UserStatusCallbackRecord = Type.Object({
  ...common,
  eventType: Type.Literal('userStatus'),
  user: Type.String({ description: '{appkey}_{username}@easemob.com/{resource}' }),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  reason: Type.Union([Type.Literal('login'), Type.Literal('logout'), Type.Literal('replaced')]),
  os: Type.String({ description: 'ios, android, linux, osx, win or other' }),
  ip: Type.String({ description: 'the client address' }),
  version: Type.String({ description: "the SDK's version, as it gave it; empty when it gave none" }),
  ...signature,
});
export type UserStatusCallbackRecord = Static<typeof UserStatusCallbackRecord>;

/** A message recalled (`callback_message_recall.md`). */
export const RecallCallbackRecord = Type.Object({
  ...common,
  eventType: Type.Literal('chat'),
  chat_type: Type.Literal('recall'),
  group_id: Type.Optional(Type.String({ description: 'the group or chat room of a group or chat-room message' })),
  from: Type.String({ description: 'the sender of the recalled message' }),
  to: Type.String({ description: 'its receiver: a user, or the group or chat-room id' }),
  msg_id: Type.String({ description: 'id of the recall' }),
  recall_id: Type.String({ description: 'id of the recalled message' }),
  payload: Type.Object({ ext: Empty, ack_message_id: Type.String(), bodies: Type.Array(Type.Unknown(), { maxItems: 0 }) }),
  ...signature,
});
export type RecallCallbackRecord = Static<typeof RecallCallbackRecord>;

/** A one-to-one read receipt (`callback_single_read_ack.md`). */
export const ReadAckCallbackRecord = Type.Object({
  ...common,
  eventType: Type.Literal('chat'),
  chat_type: Type.Literal('read_ack'),
  from: Type.String({ description: 'who read' }),
  to: Type.String({ description: 'the sender of the message read' }),
  msg_id: Type.String({ description: 'id of the receipt' }),
  channel_channel: Type.String({ description: '{appkey}_{to}@conference.easemob.com' }),
  payload: Type.Object({ ext: Empty, ack_message_id: Type.String(), bodies: Type.Array(Type.Unknown(), { maxItems: 0 }) }),
  ...signature,
});
export type ReadAckCallbackRecord = Static<typeof ReadAckCallbackRecord>;

/** A group read receipt (`callback_group_read_ack.md`). */
export const GroupReadAckCallbackRecord = Type.Object({
  ...common,
  eventType: Type.Literal('chat'),
  chat_type: Type.Literal('read_ack'),
  from: Type.String({ description: 'who read' }),
  to: Type.String({ description: 'the group id' }),
  msg_id: Type.String({ description: 'id of the receipt' }),
  channel_channel: Type.String({ description: '{appkey}_{group id}@conference.easemob.com' }),
  channel_user: Type.String({ description: '{appkey}_{reader}@easemob.com' }),
  content_type: Type.Literal('chat:ack:read'),
  payload: Type.Object({
    ext: Empty,
    ack_message_id: Type.String(),
    msg_config: Type.Object({ allow_group_ack: Type.Literal(true) }),
    type: Type.Literal('read_ack'),
  }),
  writed_channel: Type.Literal(false),
  ...signature,
});
export type GroupReadAckCallbackRecord = Static<typeof GroupReadAckCallbackRecord>;

/** Any record of the catalogue. */
export type CatalogueCallbackRecord = RosterCallbackRecord | UserStatusCallbackRecord | RecallCallbackRecord | ReadAckCallbackRecord | GroupReadAckCallbackRecord;
