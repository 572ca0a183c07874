/**
 * The conversation list's query (contract 3.3, 6.3) and the inbox's counts: the filters an agent's
 * inbox uses (skill group, label, VIP, waiting time, text, customer), the views (`mine`, `team`)
 * and the sort orders.
 */
import { Type, type Static } from 'typebox';
import { CONVERSATION_PAGE_DEFAULT, CONVERSATION_PAGE_MAX, ConversationState, epochMs } from './channel.js';

/** Orders of the list: `queue` VIP first then longest waiting; `longest_waiting` by queue time only; `newest` by opening; `latest` by last activity. */
export const ConversationSort = Type.Union([Type.Literal('queue'), Type.Literal('longest_waiting'), Type.Literal('newest'), Type.Literal('latest')], {
  description: 'Order of the list; without it `queue` for state=waiting, else `latest`',
});
export type ConversationSort = Static<typeof ConversationSort>;

/** Filters shared by the list and the counts. */
const sharedFilters = {
  queue_id: Type.Optional(Type.String({ pattern: '^\\d{1,16}$' })),
  customer: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The customer id (`from` of their messages)' })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Text of a txt message, case-insensitive substring' })),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "A label of the conversation, or one of the customer's tags (ext.visitor.tags)" })),
  vip: Type.Optional(Type.Boolean({ description: 'true: only VIP customers; false: only the others' })),
};

export const ConversationQuery = Type.Object(
  {
    state: Type.Optional(ConversationState),
    mine: Type.Optional(Type.Boolean()),
    team: Type.Optional(Type.Boolean({ description: 'true: only conversations not assigned to you (held by another agent or by nobody)' })),
    agent_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Conversations held (or, closed, last held) by this agent' })),
    ...sharedFilters,
    waiting_min: Type.Optional(Type.Integer({ minimum: 1, maximum: 525_600, description: 'Only waiting conversations queued at least this many minutes ago' })),
    from: Type.Optional(epochMs('updated_at at or after this time (epoch ms)')),
    to: Type.Optional(epochMs('updated_at at or before this time (epoch ms)')),
    sort: Type.Optional(ConversationSort),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX, description: `Page size (default ${CONVERSATION_PAGE_DEFAULT})` })),
    cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$', description: "The previous page's `cursor`" })),
  },
  { additionalProperties: false },
);
export type ConversationQuery = Static<typeof ConversationQuery>;

export const ConversationCountsQuery = Type.Object(sharedFilters, { additionalProperties: false });
export type ConversationCountsQuery = Static<typeof ConversationCountsQuery>;

/** The inbox's three views, counted in one query over the open conversations the caller may see. */
export const ConversationCounts = Type.Object(
  {
    waiting: Type.Integer({ description: 'Waiting conversations' }),
    mine: Type.Integer({ description: 'Conversations in progress assigned to you' }),
    team: Type.Integer({ description: 'Conversations in progress assigned to someone else' }),
  },
  { examples: [{ waiting: 4, mine: 2, team: 7 }] },
);
export type ConversationCounts = Static<typeof ConversationCounts>;
