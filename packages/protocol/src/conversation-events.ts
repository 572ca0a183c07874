/**
 * Conversation events for the integrator (contract 6.4): their names, the body pushed to the
 * association's callback address, and the signed customer-side requests (receipts, typing,
 * ratings). A receiver tells an event from an agent reply (spec 2.3) by the presence of `event`.
 */
import { Type, type Static } from 'typebox';

export const INTEGRATOR_EVENT_NAMES = ['queued', 'position_changed', 'assigned', 'transferred', 'agent_typing', 'closed', 'csat_invitation', 'csat_submitted'] as const;
export type IntegratorEventName = (typeof INTEGRATOR_EVENT_NAMES)[number];

export const IntegratorEventNameSchema = Type.Union(
  [
    Type.Literal('queued'),
    Type.Literal('position_changed'),
    Type.Literal('assigned'),
    Type.Literal('transferred'),
    Type.Literal('agent_typing'),
    Type.Literal('closed'),
    Type.Literal('csat_invitation'),
    Type.Literal('csat_submitted'),
  ],
  { description: 'A conversation event an association may receive (contract 6.4)' },
);

/** An association's `events` setting: which events are pushed (default none). */
export const AssociationEvents = Type.Array(IntegratorEventNameSchema, { maxItems: INTEGRATOR_EVENT_NAMES.length, uniqueItems: true });

/** Who closed a conversation. */
export type ClosedBy = 'agent' | 'customer' | 'system';

/** The agent as an event shows it. */
export interface EventAgent {
  user_nickname: string;
  avatar: string | null;
}

/** What every event body holds. */
export interface ConversationEventBase {
  event: IntegratorEventName;
  /** The customer id (the `from` of their messages). */
  to: string;
  tenant_id: number;
  channel_id: number;
  conversation_id: number;
  timestamp: number;
}

/** The fields each event adds to the base. */
export interface ConversationEventFields {
  queued: { position: number; estimated_wait_seconds: number | null };
  position_changed: { position: number; estimated_wait_seconds: number | null };
  assigned: { agent: EventAgent; queue_name: string };
  transferred: { agent: EventAgent | null; queue_name: string };
  agent_typing: Record<never, never>;
  closed: { by: ClosedBy; reason: string };
  csat_invitation: Record<never, never>;
  csat_submitted: { score: number; comment: string | null };
}

export type ConversationEventPush<E extends IntegratorEventName = IntegratorEventName> = ConversationEventBase & { event: E } & ConversationEventFields[E];

// --- Signed customer-side requests (HMAC as the send-message API) --------------------------------

const CustomerId = Type.String({ minLength: 1, maxLength: 256 });

export const ReceiptStatus = Type.Union([Type.Literal('delivered'), Type.Literal('read')]);
export type ReceiptStatus = Static<typeof ReceiptStatus>;

export const ReceiptsRequest = Type.Object(
  { to: CustomerId, msg_ids: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 100 }), status: ReceiptStatus },
  { additionalProperties: false, examples: [{ to: 'customer-42', msg_ids: ['0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a'], status: 'read' }] },
);
export type ReceiptsRequest = Static<typeof ReceiptsRequest>;

export const CustomerTypingRequest = Type.Object({ from: CustomerId }, { additionalProperties: false, examples: [{ from: 'customer-42' }] });
export type CustomerTypingRequest = Static<typeof CustomerTypingRequest>;

export const RatingRequest = Type.Object(
  {
    from: CustomerId,
    conversation_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    score: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false, examples: [{ from: 'customer-42', conversation_id: 12, score: 5, comment: 'Quick and kind' }] },
);
export type RatingRequest = Static<typeof RatingRequest>;

/** The answer of a receipts call: how many agent messages changed. */
export const ReceiptsResult = Type.Object({ updated: Type.Integer() });
export type ReceiptsResult = Static<typeof ReceiptsResult>;

export const RatingView = Type.Object({ score: Type.Integer(), comment: Type.Union([Type.String(), Type.Null()]), createdAt: Type.Integer() });
export type RatingView = Static<typeof RatingView>;
