/**
 * Wire schemas of Area A, the customer-service REST channel (spec 2.1-2.3, contract 3):
 * associations, the customer message a customer's server posts, the agent reply Parley pushes,
 * conversations and their history, the delivery log.
 */
import { Type, type Static } from 'typebox';
import { CHANNEL_EXAMPLES as E } from './examples.js';
import { AssociationEvents, RatingView, ReceiptStatus } from './conversation-events.js';

// --- Associations (contract 3.1) -------------------------------------------------------------

export const ChannelParams = Type.Object({ tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), channelId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export type ChannelParams = Static<typeof ChannelParams>;

export const CreateAssociationRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    callback_url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) address that receives agent replies' }),
    agent_queue_id: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{1,16}$' }), Type.Null()], { description: 'Skill group used when a message names none' })),
  },
  { additionalProperties: false, examples: [E.createAssociation] },
);
export type CreateAssociationRequest = Static<typeof CreateAssociationRequest>;

export const UpdateAssociationRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    callback_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    agent_queue_id: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{1,16}$' }), Type.Null()])),
    events: Type.Optional(AssociationEvents),
  },
  { additionalProperties: false, examples: [E.updateAssociation] },
);
export type UpdateAssociationRequest = Static<typeof UpdateAssociationRequest>;

/** An association as shown to its tenant's admins. The secret is shown on every read (contract 3.1). */
export const AssociationView = Type.Object({
  tenantId: Type.Integer(),
  channelId: Type.Integer(),
  name: Type.String(),
  clientId: Type.String({ format: 'uuid' }),
  clientSecret: Type.String({ description: '32 lower-case hex characters' }),
  postMessageUrl: Type.String(),
  callbackUrl: Type.String(),
  agentQueueId: Type.Union([Type.String(), Type.Null()]),
  events: AssociationEvents,
  createDateTime: Type.Integer(),
  previousSecretExpiresAt: Type.Optional(
    Type.Union([Type.Integer(), Type.Null()], { description: 'While a rotation overlaps (contract 6.6): ms at which the previous Client Secret stops working; else null' }),
  ),
}, { examples: [E.association] });
export type AssociationView = Static<typeof AssociationView>;

// --- Customer message (spec 2.2) ---------------------------------------------------------------

export const CustomerBodyType = Type.Union([Type.Literal('txt'), Type.Literal('img'), Type.Literal('audio'), Type.Literal('video')]);
export type CustomerBodyType = Static<typeof CustomerBodyType>;

export const MessageBody = Type.Object({
  type: Type.String(),
  msg: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
  size: Type.Optional(Type.Object({ width: Type.Optional(Type.Integer()), height: Type.Optional(Type.Integer()) })),
  length: Type.Optional(Type.Integer()),
  file_length: Type.Optional(Type.Integer()),
});
export type MessageBody = Static<typeof MessageBody>;

/**
 * The customer message's rules are described here once: `validateCustomerMessage`
 * (channel-validate.ts) checks a message against these schemas and words its errors from them.
 * Properties it does not name are accepted and ignored.
 */
export const Visitor = Type.Object({
  user_nickname: Type.Optional(Type.String()),
  true_name: Type.Optional(Type.String()),
  qq: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  company_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
});
export type Visitor = Static<typeof Visitor>;

export const VISITOR_STRING_FIELDS = ['user_nickname', 'true_name', 'qq', 'email', 'phone', 'company_name', 'description'] as const;

export const OrderCard = Type.Object({
  title: Type.Optional(Type.String()),
  order_title: Type.Optional(Type.String()),
  price: Type.Optional(Type.String()),
  desc: Type.Optional(Type.String()),
  img_url: Type.Optional(Type.String()),
  item_url: Type.Optional(Type.String()),
});
export const TrackCard = Type.Object({
  title: Type.Optional(Type.String()),
  price: Type.Optional(Type.String()),
  desc: Type.Optional(Type.String()),
  img_url: Type.Optional(Type.String()),
  item_url: Type.Optional(Type.String()),
});

export const CustomerMessageExt = Type.Object({
  queue_id: Type.Optional(Type.String()),
  queue_name: Type.Optional(Type.String()),
  agent_username: Type.Optional(Type.String()),
  visitor: Type.Optional(Visitor),
  msgtype: Type.Optional(Type.Object({ order: Type.Optional(OrderCard), track: Type.Optional(TrackCard) })),
});

/** A media body's address: an http(s) URL (format `http-url`, see schema-check.ts). */
const MediaUrl = Type.String({ format: 'http-url' });
const MediaLength = Type.Optional(Type.Integer({ minimum: 0 }));

/** One body of a customer message, told apart by `type` (spec 2.2). */
export const CustomerMessageBody = Type.Union([
  Type.Object({ type: Type.Literal('txt'), msg: Type.String({ minLength: 1 }) }),
  Type.Object({
    type: Type.Literal('img'),
    url: MediaUrl,
    filename: Type.String({ minLength: 1 }),
    size: Type.Optional(Type.Object({ width: Type.Optional(Type.Integer({ minimum: 0 })), height: Type.Optional(Type.Integer({ minimum: 0 })) })),
  }),
  Type.Object({ type: Type.Literal('audio'), url: MediaUrl, filename: Type.String({ minLength: 1 }), length: MediaLength }),
  Type.Object({ type: Type.Literal('video'), url: MediaUrl, filename: Type.String({ minLength: 1 }), length: MediaLength }),
]);
export type CustomerMessageBody = Static<typeof CustomerMessageBody>;

/** At most this many bodies in one customer message. */
export const MAX_CUSTOMER_BODIES = 20;

/** Properties in the order they are checked: the first broken rule is the one reported. */
export const CustomerMessage = Type.Object({
  bodies: Type.Array(CustomerMessageBody, { minItems: 1, maxItems: MAX_CUSTOMER_BODIES }),
  origin_type: Type.Literal('rest'),
  from: Type.String({ minLength: 1, maxLength: 256, format: 'non-blank' }),
  timestamp: Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  msg_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  ext: Type.Optional(CustomerMessageExt),
}, { examples: [E.customerMessage] });
export type CustomerMessage = Static<typeof CustomerMessage>;

export const SendMessageResult = Type.Object({ msg_id: Type.String(), conversation_id: Type.Integer(), duplicate: Type.Boolean() }, { examples: [E.sendMessageResult] });
export type SendMessageResult = Static<typeof SendMessageResult>;

// --- Agent reply (spec 2.3, contract 3.3/3.4) ---------------------------------------------------

export const AgentReplyBody = Type.Union([
  Type.Object({ type: Type.Literal('txt'), msg: Type.String({ minLength: 1, maxLength: 10_000 }) }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('img'),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      filename: Type.String({ minLength: 1, maxLength: 255 }),
      size: Type.Optional(Type.Object({ width: Type.Integer({ minimum: 0 }), height: Type.Integer({ minimum: 0 }) }, { additionalProperties: false })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('audio'),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      filename: Type.String({ minLength: 1, maxLength: 255 }),
      length: Type.Optional(Type.Integer({ minimum: 0 })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('file'),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      filename: Type.String({ minLength: 1, maxLength: 255 }),
      file_length: Type.Optional(Type.Integer({ minimum: 0 })),
    },
    { additionalProperties: false },
  ),
]);
export type AgentReplyBody = Static<typeof AgentReplyBody>;

export const SendReplyRequest = Type.Object({ bodies: Type.Array(AgentReplyBody, { minItems: 1, maxItems: 10 }) }, { additionalProperties: false, examples: [E.sendReply] });
export type SendReplyRequest = Static<typeof SendReplyRequest>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

export const DeliveryRef = Type.Object({ id: Type.String(), status: DeliveryStatus });
export type DeliveryRef = Static<typeof DeliveryRef>;

export const SendReplyResult = Type.Object({ msg_id: Type.String(), delivery: DeliveryRef }, { examples: [E.sendReplyResult] });
export type SendReplyResult = Static<typeof SendReplyResult>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `ext.visitor` of a push: every profile field (null when unknown) plus weixin, tags, callback_user. */
export const ReplyVisitor = Type.Object({
  user_nickname: NullableString,
  true_name: NullableString,
  qq: NullableString,
  email: NullableString,
  phone: NullableString,
  company_name: NullableString,
  description: NullableString,
  weixin: NullableString,
  tags: Type.Union([Type.Array(Type.String()), Type.Null()]),
  callback_user: Type.String(),
});
export type ReplyVisitor = Static<typeof ReplyVisitor>;

/** The body Parley POSTs to an association's callback address (spec 2.3). */
export const AgentReplyPush = Type.Object({
  bodies: Type.Array(AgentReplyBody),
  ext: Type.Object({
    msg_id: Type.String(),
    visitor: ReplyVisitor,
    agent: Type.Object({ avatar: NullableString, user_nickname: Type.String() }),
    queue_id: NullableString,
    queue_name: Type.String(),
    agent_username: Type.String(),
    system: Type.Optional(Type.Literal(true, { description: 'Present on automatic messages (welcome, out-of-hours, queue notice, idle warning): no agent wrote them' })),
  }),
  to: Type.String(),
  channel_type: Type.Literal('rest'),
  tenant_id: Type.Integer(),
  origin_type: Type.Literal('rest'),
  channel_id: Type.Integer(),
});
export type AgentReplyPush = Static<typeof AgentReplyPush>;

// --- Conversations (contract 3.3) ---------------------------------------------------------------

export const ConversationState = Type.Union([Type.Literal('waiting'), Type.Literal('processing'), Type.Literal('closed')]);
export type ConversationState = Static<typeof ConversationState>;

export const ConversationParams = Type.Object({ tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export type ConversationParams = Static<typeof ConversationParams>;

/** The most conversations one page of the list holds, and how many without `limit`. */
export const CONVERSATION_PAGE_MAX = 100;
export const CONVERSATION_PAGE_DEFAULT = 20;

export const epochMs = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

// The list's query (ConversationQuery) and the inbox counts are in conversation-query.ts.

export const AgentRef = Type.Object({ id: Type.Integer(), username: Type.String(), nickname: Type.String(), avatar: NullableString });
export type AgentRef = Static<typeof AgentRef>;

export const VisitorView = Type.Object({
  customer_id: Type.String(),
  user_nickname: NullableString,
  true_name: NullableString,
  qq: NullableString,
  email: NullableString,
  phone: NullableString,
  company_name: NullableString,
  description: NullableString,
  tags: Type.Array(Type.String()),
});
export type VisitorView = Static<typeof VisitorView>;

/** An agent reply's push, as shown on the message: `lastError` says why the last attempt failed. */
export const MessageDelivery = Type.Object({ id: Type.String(), status: DeliveryStatus, lastError: NullableString });
export type MessageDelivery = Static<typeof MessageDelivery>;

export const MessageView = Type.Object({
  msg_id: Type.String(),
  direction: Type.Union([Type.Literal('customer'), Type.Literal('agent')]),
  from: Type.String(),
  bodies: Type.Array(MessageBody),
  ext: Type.Record(Type.String(), Type.Unknown()),
  timestamp: Type.Integer(),
  createdAt: Type.Integer(),
  agent: Type.Union([AgentRef, Type.Null()]),
  delivery: Type.Union([MessageDelivery, Type.Null()]),
  receipt: Type.Union([ReceiptStatus, Type.Null()], { description: "An agent message's receipt from the customer's server (contract 6.4); null on customer messages" }),
}, { examples: [E.message] });
export type MessageView = Static<typeof MessageView>;

export const ConversationView = Type.Object({
  id: Type.Integer(),
  state: ConversationState,
  queue_id: Type.String(),
  agent: Type.Union([AgentRef, Type.Null()]),
  visitor: VisitorView,
  vip: Type.Boolean(),
  channelId: Type.Integer(),
  createdAt: Type.Integer(),
  /** The last message or change of state. */
  updatedAt: Type.Integer(),
  closedAt: Type.Union([Type.Integer(), Type.Null()]),
  lastMessage: Type.Union([MessageView, Type.Null()]),
  rating: Type.Union([RatingView, Type.Null()], { description: "The customer's satisfaction rating (contract 6.4)" }),
  labels: Type.Array(Type.String(), { description: "The conversation's labels (contract 6.4)" }),
}, { examples: [E.conversation] });
export type ConversationView = Static<typeof ConversationView>;

/** A page of the conversation list: `cursor` asks for the next one (null: this is the last). */
export const ConversationPage = Type.Object(
  { status: Type.Literal('OK'), entities: Type.Array(ConversationView), total: Type.Integer(), cursor: Type.Union([Type.String(), Type.Null()]) },
  {
    examples: [
      {
        status: 'OK',
        entities: [
          {
            id: 41,
            state: 'closed',
            queue_id: '12',
            agent: { id: 7, username: 'lily@example.com', nickname: 'Lily', avatar: null },
            visitor: { customer_id: 'wx_openid123', user_nickname: 'Wang', true_name: null, qq: null, email: null, phone: null, company_name: null, description: null, tags: ['gold'] },
            vip: true,
            channelId: 3,
            createdAt: 1893455940000,
            updatedAt: 1893456240000,
            closedAt: 1893456240000,
            lastMessage: null,
            rating: { score: 5, comment: 'Quick and kind', createdAt: 1893456300000 },
            labels: ['refund'],
          },
        ],
        total: 1,
        cursor: 'ci4xODkzNDU2MjQwMDAwLjQx',
      },
    ],
  },
);
export type ConversationPage = Static<typeof ConversationPage>;

export const TransferRequest = Type.Object(
  { agent_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })), queue_id: Type.Optional(Type.String({ pattern: '^\\d{1,16}$' })) },
  { additionalProperties: false, examples: [E.transfer] },
);
export type TransferRequest = Static<typeof TransferRequest>;

// --- Delivery log (contract 3.1) ----------------------------------------------------------------

export const DeliveryAttemptView = Type.Object({
  attempt: Type.Integer(),
  startedAt: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  latencyMs: Type.Integer(),
  error: NullableString,
  succeeded: Type.Boolean(),
});
export type DeliveryAttemptView = Static<typeof DeliveryAttemptView>;

export const DeliveryView = Type.Object({
  id: Type.String(),
  channelId: Type.Integer(),
  msg_id: Type.Union([Type.String(), Type.Null()], { description: 'The agent reply pushed; null for a conversation event' }),
  event: Type.Union([Type.String(), Type.Null()], { description: 'The conversation event pushed (contract 6.4); null for an agent reply' }),
  to: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Array(DeliveryAttemptView),
  nextAttemptAt: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
}, { examples: [E.delivery] });
export type DeliveryView = Static<typeof DeliveryView>;

export const DeliveryQuery = Type.Object({ status: Type.Optional(DeliveryStatus) }, { additionalProperties: false });
export const DeliveryParams = Type.Object({
  tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  channelId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
export type DeliveryParams = Static<typeof DeliveryParams>;

export const MediaView = Type.Object({ url: Type.String(), filename: Type.String(), file_length: Type.Integer(), content_type: Type.String() }, { examples: [E.media] });
export type MediaView = Static<typeof MediaView>;
