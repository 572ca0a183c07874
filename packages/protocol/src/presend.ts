/**
 * Wire schemas of the pre-send callback (contract 6.5; Easemob's `callback_presending`): the
 * rules an app configures, the record Parley POSTs before a message is delivered, and the answer
 * it expects back.
 */
import { Type, type Static } from 'typebox';
import { RuleName } from './callbacks.js';

export const PRESEND_CHAT_TYPES = ['chat', 'groupchat'] as const;
export const PRESEND_MESSAGE_TYPES = ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'] as const;
export const PRESEND_ON_FAILURE = ['allow', 'reject'] as const;
export const MAX_PRESEND_RULES = 4;
export const PRESEND_DEFAULT_TIMEOUT_MS = 200;
export const PRESEND_MIN_TIMEOUT_MS = 50;
export const PRESEND_MAX_TIMEOUT_MS = 5_000;
/** An answer longer than this (characters) is a failure, as Easemob treats it. */
export const PRESEND_MAX_ANSWER_CHARS = 1_000;

export type PresendChatType = (typeof PRESEND_CHAT_TYPES)[number];
export type PresendMessageType = (typeof PRESEND_MESSAGE_TYPES)[number];
export type PresendOnFailure = (typeof PRESEND_ON_FAILURE)[number];

const ChatType = Type.Union([Type.Literal('chat'), Type.Literal('groupchat')]);
const MessageType = Type.Union([
  Type.Literal('txt'),
  Type.Literal('img'),
  Type.Literal('audio'),
  Type.Literal('video'),
  Type.Literal('file'),
  Type.Literal('loc'),
  Type.Literal('cmd'),
  Type.Literal('custom'),
]);
const OnFailure = Type.Union([Type.Literal('allow'), Type.Literal('reject')], { description: 'what a failed call means: allow (deliver) or reject; default allow' });
const Url = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'http or https URL' });
const Timeout = Type.Integer({
  minimum: PRESEND_MIN_TIMEOUT_MS,
  maximum: PRESEND_MAX_TIMEOUT_MS,
  description: `ms to wait for the answer (default ${PRESEND_DEFAULT_TIMEOUT_MS})`,
});
const chatTypes = Type.Array(ChatType, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'default: all; groupchat covers groups and chat rooms' });
const messageTypes = Type.Array(MessageType, { minItems: 1, maxItems: 8, uniqueItems: true, description: 'default: all' });

const example = { name: 'moderation', url: 'https://example.com/presend', timeout_ms: 200, on_failure: 'reject', chat_types: ['chat'], message_types: ['txt'] };

export const CreatePresendRuleRequest = Type.Object(
  {
    name: RuleName,
    url: Url,
    timeout_ms: Type.Optional(Timeout),
    on_failure: Type.Optional(OnFailure),
    chat_types: Type.Optional(chatTypes),
    message_types: Type.Optional(messageTypes),
  },
  { additionalProperties: false, examples: [example] },
);
export type CreatePresendRuleRequest = Static<typeof CreatePresendRuleRequest>;

export const UpdatePresendRuleRequest = Type.Object(
  {
    url: Type.Optional(Url),
    timeout_ms: Type.Optional(Timeout),
    on_failure: Type.Optional(OnFailure),
    chat_types: Type.Optional(chatTypes),
    message_types: Type.Optional(messageTypes),
  },
  { additionalProperties: false, examples: [{ on_failure: 'allow', timeout_ms: 300 }] },
);
export type UpdatePresendRuleRequest = Static<typeof UpdatePresendRuleRequest>;

export const PresendRuleView = Type.Object(
  {
    name: Type.String(),
    url: Type.String(),
    timeout_ms: Type.Integer(),
    on_failure: OnFailure,
    chat_types: Type.Array(ChatType),
    message_types: Type.Array(MessageType),
    secret: Type.String(),
  },
  { examples: [{ ...example, secret: '0123456789abcdef0123456789abcdef' }] },
);
export type PresendRuleView = Static<typeof PresendRuleView>;

/** The POST body of one pre-send call, in the order it is serialised (`security` is added last). */
export interface PresendRecord {
  callId: string;
  timestamp: number;
  chat_type: PresendChatType;
  group_id?: string;
  from: string;
  to: string;
  msg_id: string;
  payload: { bodies: Array<Record<string, unknown>>; ext: Record<string, unknown> };
}

/**
 * The POST body of a pre-send call about an edit of a sent message, in Easemob's shape for an
 * edit's record (`chat_type` "edit", `payload.type` "edit", `payload.edit_message_id` the message
 * edited, `payload.meta.edit_msg`); `msg_id` is the edit's own id, `timestamp` its time.
 */
export interface PresendEditRecord {
  callId: string;
  timestamp: number;
  chat_type: 'edit';
  group_id?: string;
  from: string;
  to: string;
  msg_id: string;
  payload: {
    type: 'edit';
    edit_message_id: string;
    bodies: Array<Record<string, unknown>>;
    ext: Record<string, unknown>;
    meta: { edit_msg: { chat_type: 'chat:user' | 'chat:group' | 'chat:room'; send_time: number; edit_time: number; sender: string; operator: string } };
  };
}
