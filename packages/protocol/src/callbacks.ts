/**
 * Wire schemas of the post-send callback surface (spec 2.4, 2.5, 4.3–4.5; contract 4.4–4.6).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { CALLBACK_EXAMPLES as E } from './examples.js';

export const CALLBACK_SECURITY_VERSION = '1.0.0';

/** What a rule's `event_types` may list: the message records, then the event catalogue (contract 6.7b, callbacks-catalogue.ts). */
export const CALLBACK_EVENT_TYPES = ['chat', 'chat_offline', 'group_op_event', 'roster', 'userStatus', 'recall', 'read_ack'] as const;
/** A rule created without `event_types` receives message records only. */
export const DEFAULT_CALLBACK_EVENT_TYPES = ['chat', 'chat_offline'] as const;
export const CALLBACK_CHAT_TYPES = ['chat', 'groupchat'] as const;
export const CALLBACK_MESSAGE_TYPES = ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'] as const;
export const CALLBACK_SOURCES = ['sdk', 'rest'] as const;
export const MAX_CALLBACK_RULES = 4;

export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];
export type CallbackChatType = (typeof CALLBACK_CHAT_TYPES)[number];
export type CallbackMessageType = (typeof CALLBACK_MESSAGE_TYPES)[number];
export type CallbackSource = (typeof CALLBACK_SOURCES)[number];

const MessageEventTypeSchema = Type.Union([Type.Literal('chat'), Type.Literal('chat_offline')]);
const EventTypeSchema = Type.Union([
  MessageEventTypeSchema,
  Type.Literal('group_op_event'),
  Type.Literal('roster'),
  Type.Literal('userStatus'),
  Type.Literal('recall'),
  Type.Literal('read_ack'),
]);
const ChatTypeSchema = Type.Union([Type.Literal('chat'), Type.Literal('groupchat')]);
const MessageTypeSchema = Type.Union([
  Type.Literal('txt'),
  Type.Literal('img'),
  Type.Literal('audio'),
  Type.Literal('video'),
  Type.Literal('file'),
  Type.Literal('loc'),
  Type.Literal('cmd'),
  Type.Literal('custom'),
]);
const SourceSchema = Type.Union([Type.Literal('sdk'), Type.Literal('rest')]);
const subset = <T extends TSchema>(item: T, max: number, description: string) =>
  Type.Array(item, { minItems: 1, maxItems: max, uniqueItems: true, description });

/** The POST body of one callback (spec 2.4), in the order it is serialised. */
export const CallbackRecord = Type.Object({
  callId: Type.String({ description: '{appkey}_{uuid}' }),
  eventType: MessageEventTypeSchema,
  timestamp: Type.Integer({ description: 'Unix ms at which Parley received the message' }),
  chat_type: ChatTypeSchema,
  group_id: Type.Optional(Type.String()),
  from: Type.String(),
  to: Type.String(),
  msg_id: Type.String(),
  payload: Type.Object({
    bodies: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    ext: Type.Record(Type.String(), Type.Unknown()),
  }),
  securityVersion: Type.String(),
  security: Type.String({ description: 'md5(callId + secret + timestamp), lower-case hex' }),
});
export type CallbackRecord = Static<typeof CallbackRecord>;

/** Header carrying the MD5 of the exact body bytes (spec 5.2 item 3). */
export const CALLBACK_BODY_MD5_HEADER = 'x-callback-body-md5';

export const CallbackServiceSettings = Type.Object(
  { enabled: Type.Boolean(), store_failed: Type.Boolean() },
  { additionalProperties: false, examples: [E.settings] },
);
export type CallbackServiceSettings = Static<typeof CallbackServiceSettings>;

export const CallbackServiceUpdate = Type.Object(
  { enabled: Type.Optional(Type.Boolean()), store_failed: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, examples: [E.settings] },
);
export type CallbackServiceUpdate = Static<typeof CallbackServiceUpdate>;

export const RuleName = Type.String({ pattern: '^[A-Za-z0-9_]{1,32}$', description: '1–32 of A-Za-z0-9_' });
const RuleUrl = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'http or https URL' });

export const CreateCallbackRuleRequest = Type.Object(
  {
    name: RuleName,
    url: RuleUrl,
    enabled: Type.Optional(Type.Boolean()),
    event_types: Type.Optional(subset(EventTypeSchema, CALLBACK_EVENT_TYPES.length, 'default: chat, chat_offline')),
    chat_types: Type.Optional(subset(ChatTypeSchema, 2, 'default: all; groupchat covers groups and chat rooms')),
    message_types: Type.Optional(subset(MessageTypeSchema, 8, 'default: all')),
    sources: Type.Optional(subset(SourceSchema, 2, 'default: all')),
    redrive: Type.Optional(Type.Boolean({ description: 'When a ban ends, re-send the records stored during it, in order (default false)' })),
  },
  { additionalProperties: false, examples: [E.createRule] },
);
export type CreateCallbackRuleRequest = Static<typeof CreateCallbackRuleRequest>;

export const UpdateCallbackRuleRequest = Type.Object(
  {
    url: Type.Optional(RuleUrl),
    enabled: Type.Optional(Type.Boolean()),
    event_types: Type.Optional(subset(EventTypeSchema, CALLBACK_EVENT_TYPES.length, 'default: chat, chat_offline')),
    chat_types: Type.Optional(subset(ChatTypeSchema, 2, 'default: all')),
    message_types: Type.Optional(subset(MessageTypeSchema, 8, 'default: all')),
    sources: Type.Optional(subset(SourceSchema, 2, 'default: all')),
    redrive: Type.Optional(Type.Boolean({ description: 'When a ban ends, re-send the records stored during it, in order' })),
  },
  { additionalProperties: false, examples: [E.updateRule] },
);
export type UpdateCallbackRuleRequest = Static<typeof UpdateCallbackRuleRequest>;

export const CallbackRuleView = Type.Object({
  name: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean(),
  event_types: Type.Array(EventTypeSchema),
  chat_types: Type.Array(ChatTypeSchema),
  message_types: Type.Array(MessageTypeSchema),
  sources: Type.Array(SourceSchema),
  secret: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('banned')]),
  ban_count: Type.Integer(),
  banned_until: Type.Union([Type.Integer(), Type.Null()]),
  redrive: Type.Optional(Type.Boolean({ description: 'Re-send the records stored during a ban when it ends' })),
  previous_secret_expires_at: Type.Optional(
    Type.Union([Type.Integer(), Type.Null()], { description: 'While a rotation overlaps (contract 6.6): ms at which the previous secret stops signing; else null' }),
  ),
}, { examples: [E.rule] });
export type CallbackRuleView = Static<typeof CallbackRuleView>;

export const RuleParams = Type.Object({ org: Type.String(), app: Type.String(), name: RuleName });

/** Stored-callback entry (spec 2.5). */
export const StoredKeyInfo = Type.Object({
  date: Type.String({ description: 'yyyyMMddHHmm, start of the 10-minute window' }),
  size: Type.Integer(),
  retry: Type.Integer(),
}, { examples: [E.storedKey] });
export type StoredKeyInfo = Static<typeof StoredKeyInfo>;

export const StorageRetryRequest = Type.Object(
  {
    date: Type.String({ description: 'yyyyMMddHHmm on a 10-minute boundary' }),
    retry: Type.Optional(Type.Integer({ minimum: 0 })),
    targetUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false, examples: [E.retry] },
);
export type StorageRetryRequest = Static<typeof StorageRetryRequest>;

/** Records per page of `GET …/callbacks/storage/{date}` without `limit`, and the largest `limit`. */
export const STORED_RECORDS_DEFAULT_LIMIT = 100;
export const STORED_RECORDS_MAX_LIMIT = 1000;

export const StoredRecordsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: STORED_RECORDS_MAX_LIMIT, description: `records per page (default ${STORED_RECORDS_DEFAULT_LIMIT})` }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'the `cursor` of the previous page' })),
  },
);
export type StoredRecordsQuery = Static<typeof StoredRecordsQuery>;

/** How a stored record's last re-send ended (`at`: ms); a success keeps the original `last_error`. */
export const StoredResendOutcome = Type.Object({
  result: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  at: Type.Integer(),
});
export type StoredResendOutcome = Static<typeof StoredResendOutcome>;

export const StoredRecordView = Type.Object({
  callId: Type.String(),
  rule: Type.String(),
  eventType: EventTypeSchema,
  msg_id: Type.String(),
  stored_at: Type.Integer(),
  last_error: Type.String({ description: 'why the record was stored, or why its last re-send failed' }),
  last_resend: Type.Union([StoredResendOutcome, Type.Null()], { description: 'null until the record is re-sent' }),
  record: Type.Record(Type.String(), Type.Unknown()),
}, { examples: [E.storedRecord] });
export type StoredRecordView = Static<typeof StoredRecordView>;

/** One recent callback attempt (console live tail; beyond the spec). */
export const RecentCallbackAttempt = Type.Object({
  at: Type.Integer({ description: 'ms when the attempt finished' }),
  rule: Type.String(),
  callId: Type.Optional(Type.String()),
  result: Type.Union([Type.Literal('success'), Type.Literal('overlong'), Type.Literal('failure')]),
  latencyMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  resend: Type.Boolean(),
});
export type RecentCallbackAttempt = Static<typeof RecentCallbackAttempt>;

export const RecentCallbackMinute = Type.Object({
  minute: Type.Integer({ description: 'start of the minute, ms' }),
  success: Type.Integer(),
  overlong: Type.Integer(),
  failure: Type.Integer(),
});

export const RecentCallbacks = Type.Object({
  now: Type.Integer({ description: "the server's clock, ms" }),
  attempts: Type.Array(RecentCallbackAttempt, { description: 'newest first' }),
  minutes: Type.Array(RecentCallbackMinute, { description: 'the last 30 minutes, oldest first' }),
}, { examples: [E.recent] });
export type RecentCallbacks = Static<typeof RecentCallbacks>;

/** What a test record to a rule did (beyond the spec): the exact signed strings, the request and the answer. */
export const CallbackTestResult = Type.Object({
  url: Type.String(),
  signed: Type.Object({
    security: Type.String({ description: 'the string whose MD5 is `security`: callId + secret + timestamp' }),
    webhook: Type.String({ description: 'the string the Standard Webhooks signature signs: "{webhook-id}.{webhook-timestamp}.{body}"' }),
  }),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.String({ description: 'the exact request body' }),
  response: Type.Object({
    status: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no answer arrived' }),
    body: Type.String({ description: 'the answer, at most 4 KiB of it' }),
    truncated: Type.Boolean(),
    latency_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()], { description: 'timeout, connection or blocked address, when there was no answer' }),
  }),
}, {
  examples: [
    {
      url: 'https://example.com/callback',
      signed: {
        security: 'acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10' + '0123456789abcdef0123456789abcdef' + '1700000000000',
        webhook: 'acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10.1700000000.{"callId":"acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10",…}',
      },
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-callback-body-md5': '9e107d9d372bb6826bd81d3542a419d6', 'webhook-id': 'acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
      body: '{"callId":"acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10",…}',
      response: { status: 200, body: 'ok', truncated: false, latency_ms: 12, error: null },
    },
  ],
});
export type CallbackTestResult = Static<typeof CallbackTestResult>;

/** `GET /callbacks/deliveries` (beyond the spec): the durable delivery log, newest first. */
export const DELIVERY_LOG_DEFAULT_LIMIT = 50;
export const DELIVERY_LOG_MAX_LIMIT = 500;
const DeliveryStatus = Type.Union([Type.Literal('success'), Type.Literal('overlong'), Type.Literal('failure')]);
export const DeliveryLogQuery = Type.Object(
  {
    msg_id: Type.Optional(Type.String({ pattern: '^\\d{1,20}$', description: 'attempts of this message' })),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'attempts of records from or to this user' })),
    rule: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_]{1,32}$', description: 'attempts of this rule' })),
    status: Type.Optional(DeliveryStatus),
    since: Type.Optional(Type.Integer({ minimum: 0, description: 'ms, inclusive' })),
    until: Type.Optional(Type.Integer({ minimum: 0, description: 'ms, exclusive' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERY_LOG_MAX_LIMIT, description: `default ${DELIVERY_LOG_DEFAULT_LIMIT}` })),
    cursor: Type.Optional(Type.String({ pattern: '^\\d{1,20}$', maxLength: 20, description: 'from the previous page' })),
  },
  { additionalProperties: false },
);
export type DeliveryLogQuery = Static<typeof DeliveryLogQuery>;

export const DeliveryLogEntry = Type.Object({
  at: Type.Integer({ description: 'ms when the attempt ended' }),
  rule: Type.String(),
  callId: Type.String(),
  msg_id: Type.String(),
  eventType: Type.String(),
  from: Type.String(),
  to: Type.String(),
  status: DeliveryStatus,
  http_status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  resend: Type.Boolean(),
}, {
  examples: [
    { at: 1700000000123, rule: 'main', callId: 'acme#shop_6a1f0c1e-3b9a-4c55-9d0e-2f7f1b1b7a10', msg_id: '1260403012345678901', eventType: 'chat', from: 'alice', to: 'bob', status: 'failure', http_status: 503, duration_ms: 41, error: 'HTTP 503', resend: false },
  ],
});
export type DeliveryLogEntry = Static<typeof DeliveryLogEntry>;
