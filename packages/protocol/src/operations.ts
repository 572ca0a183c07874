/**
 * Operator events (contract 6.7): an operations webhook per IM app and per tenant, and the events
 * it receives, `{type, timestamp, data}`, signed with Standard Webhooks (the key is the secret's
 * UTF-8 bytes). The console shows the same events as notices.
 */
import { Type, type Static } from 'typebox';

export const OPERATOR_EVENT_TYPES = ['rule.banned', 'rule.unbanned', 'delivery.exhausted', 'store.expiring'] as const;
export type OperatorEventType = (typeof OPERATOR_EVENT_TYPES)[number];

/** How many notices `GET …/operations/events` answers at most (default 20). */
export const OPERATOR_EVENTS_MAX_LIMIT = 100;
export const OPERATOR_EVENTS_DEFAULT_LIMIT = 20;

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'http or https URL' });

export const OperationsWebhookRequest = Type.Object(
  {
    url: WebhookUrl,
    secret: Type.Optional(
      Type.String({ minLength: 16, maxLength: 128, pattern: '^[\\x21-\\x7E]+$', description: 'The signing key (its UTF-8 bytes); 16–128 printable ASCII characters. Absent: one is generated and answered once.' }),
    ),
  },
  { additionalProperties: false, examples: [{ url: 'https://ops.example.com/parley' }] },
);
export type OperationsWebhookRequest = Static<typeof OperationsWebhookRequest>;

export const OperationsWebhookView = Type.Object(
  {
    url: Type.String(),
    secret: Type.Optional(Type.String({ description: 'Only in the answer to PUT: the secret now in force (generated or given). Never shown again.' })),
    created_at: Type.Integer({ description: 'ms' }),
    updated_at: Type.Integer({ description: 'ms' }),
  },
  { examples: [{ url: 'https://ops.example.com/parley', secret: '1f0e4c9b7a3d4e2f8c6b5a4938271605', created_at: 1764201600000, updated_at: 1764201600000 }] },
);
export type OperationsWebhookView = Static<typeof OperationsWebhookView>;

/** What `GET …/operations` answers: the webhook without its secret, or null when none is set. */
export const OperationsWebhookOrNone = Type.Union([OperationsWebhookView, Type.Null()], {
  description: 'null: no operations webhook is set',
  examples: [{ url: 'https://ops.example.com/parley', created_at: 1764201600000, updated_at: 1764201600000 }],
});

export const BanReasonSchema = Type.Union([Type.Literal('failures'), Type.Literal('overlong')], {
  description: 'failures: 90 failed attempts within 30 s; overlong: 90 answers over 1,000 characters within 30 s',
});

export const RuleBannedData = Type.Object({
  rule: Type.String(),
  reason: BanReasonSchema,
  ban_count: Type.Integer(),
  banned_until: Type.Integer({ description: 'ms' }),
  last_errors: Type.Array(Type.Object({ at: Type.Integer({ description: 'ms' }), error: Type.String() }), { description: 'The latest errors seen before the ban, newest first (at most 5)' }),
});
export type RuleBannedData = Static<typeof RuleBannedData>;

export const RuleUnbannedData = Type.Object({ rule: Type.String(), ban_count: Type.Integer() });
export type RuleUnbannedData = Static<typeof RuleUnbannedData>;

export const DeliveryExhaustedData = Type.Object({
  channel_id: Type.Integer(),
  delivery_id: Type.String(),
  msg_id: Type.Union([Type.String(), Type.Null()], { description: 'The reply; null for a conversation event (contract 6.4)' }),
  last_error: Type.String(),
});
export type DeliveryExhaustedData = Static<typeof DeliveryExhaustedData>;

export const StoreExpiringData = Type.Object({
  date: Type.String({ description: 'The exception-store key, yyyyMMddHHmm' }),
  size: Type.Integer({ description: 'Records stored under the key' }),
  expires_at: Type.Integer({ description: 'ms: when its first records are deleted' }),
});
export type StoreExpiringData = Static<typeof StoreExpiringData>;

/** The body of every operator event. */
export type OperatorEvent =
  | { type: 'rule.banned'; timestamp: number; data: RuleBannedData }
  | { type: 'rule.unbanned'; timestamp: number; data: RuleUnbannedData }
  | { type: 'delivery.exhausted'; timestamp: number; data: DeliveryExhaustedData }
  | { type: 'store.expiring'; timestamp: number; data: StoreExpiringData };

export const OPERATOR_EVENT_STATUSES = ['pending', 'sent', 'failed', 'no_webhook'] as const;
export type OperatorEventStatus = (typeof OPERATOR_EVENT_STATUSES)[number];

/** A notice: one event, as recorded, with how its sending went. */
const EVENT_EXAMPLE = {
  id: '0b7f5f0e-2f7c-4f5e-9f51-5d2b8d1c9a10',
  type: 'rule.banned',
  timestamp: 1764201600000,
  data: { rule: 'main', reason: 'failures', ban_count: 1, banned_until: 1764201900000, last_errors: [{ at: 1764201599990, error: 'HTTP 500' }] },
  delivery: { status: 'sent', attempts: 1, last_error: null },
};

export const OperatorEventView = Type.Object({
  id: Type.String({ description: 'The webhook-id it is sent with' }),
  type: Type.Union([Type.Literal('rule.banned'), Type.Literal('rule.unbanned'), Type.Literal('delivery.exhausted'), Type.Literal('store.expiring')]),
  timestamp: Type.Integer({ description: 'ms' }),
  data: Type.Record(Type.String(), Type.Unknown()),
  delivery: Type.Object({
    status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('no_webhook')], {
      description: 'no_webhook: none was configured when it was sent',
    }),
    attempts: Type.Integer(),
    last_error: Type.Union([Type.String(), Type.Null()]),
  }),
}, { examples: [EVENT_EXAMPLE] });
export type OperatorEventView = Static<typeof OperatorEventView>;

export const OperatorEventsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: OPERATOR_EVENTS_MAX_LIMIT, description: `default ${OPERATOR_EVENTS_DEFAULT_LIMIT}` })) },
  { additionalProperties: false },
);
export type OperatorEventsQuery = Static<typeof OperatorEventsQuery>;
