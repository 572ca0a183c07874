/**
 * The agents' side of conversations (ConversationsRepository): reads and lists, state moves, agent
 * loads, message history; and an agent reply as a transaction writes it. Customer messages are
 * written by the arrival steps (channel-arrivals.ts).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ConversationDetails, ConversationsRepository, StoredMessage, VisitorProfile } from '../../modules/channel/ports.js';
import type { AgentReplyRow } from '../../modules/channel/transaction.js';
import type { ConversationsTable } from '../tables/channel.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { agentLoads, moveConversation } from './channel-agent-claims.js';
import { toAgentInfo } from './channel-associations.js';
import { countConversations, listConversations } from './channel-conversation-list.js';
import { toConversation, toMessage, withDeliveries } from './channel-conversation-rows.js';
import { waitingLineQuery } from './channel-events.js';

/** `engine` picks how the list searches stored JSON (channel-conversation-list.ts). */
export function kyselyConversationsRepository(db: Kysely<Database>, options: { engine: Engine }): ConversationsRepository {
  return {
    async get(tenantId, id) {
      const row = await db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toConversation(row);
    },
    details: (tenantId, ids) => conversationDetails(db, tenantId, ids),
    list: (tenantId, filter, page) => listConversations(db, options.engine, tenantId, filter, page),
    counts: (tenantId, filter, me) => countConversations(db, options.engine, tenantId, filter, me),
    assign: (id, from, to, now) => moveConversation(db, id, from, to, now),
    agentLoads: (queueId) => agentLoads(db, queueId),
    async nextWaiting(tenantId, queueId) {
      return (await waitingLineQuery(db, tenantId, queueId).select('id').limit(1).executeTakeFirst())?.id;
    },
    async history(conversationId) {
      const rows = await db.selectFrom('channel_messages').selectAll().where('conversation_id', '=', conversationId).orderBy('id').execute();
      return withDeliveries(db, rows);
    },
    async visitorOf(conversationId) {
      const row = await db
        .selectFrom('conversations as c')
        .innerJoin('channel_visitors as v', 'v.id', 'c.visitor_id')
        .select(['v.customer_id', 'v.profile', 'v.tags'])
        .where('c.id', '=', conversationId)
        .executeTakeFirst();
      return row && { customerId: row.customer_id, profile: JSON.parse(row.profile) as VisitorProfile, tags: JSON.parse(row.tags) as string[] };
    },
  };
}

async function conversationDetails(db: Kysely<Database>, tenantId: number, ids: number[]): Promise<ConversationDetails[]> {
  if (ids.length === 0) return [];
  const convs = await db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute();
  const visitorIds = [...new Set(convs.map((c) => c.visitor_id))];
  const agentIds = [...new Set(convs.map((c) => c.agent_id).filter((a): a is number => a !== null))];
  const lastIds = convs.map((c) => c.last_message_id).filter((m): m is number => m !== null);
  const [visitors, agents, lastRows, labelRows] = await Promise.all([
    db.selectFrom('channel_visitors').selectAll().where('id', 'in', visitorIds).execute(),
    agentIds.length ? db.selectFrom('users').selectAll().where('id', 'in', agentIds).execute() : Promise.resolve([]),
    lastIds.length ? db.selectFrom('channel_messages').selectAll().where('id', 'in', lastIds).execute() : Promise.resolve([]),
    db.selectFrom('conversation_labels').select(['conversation_id', 'label']).where('conversation_id', 'in', ids).orderBy('label').execute(),
  ]);
  const last = new Map((await withDeliveries(db, lastRows)).map((m) => [m.id, m]));
  const byId = new Map(convs.map((c) => [c.id, c]));
  return ids
    .map((id) => byId.get(id))
    .filter((c): c is Selectable<ConversationsTable> => c !== undefined)
    .map((c) => {
      const v = visitors.find((x) => x.id === c.visitor_id);
      const a = agents.find((x) => x.id === c.agent_id);
      return {
        conversation: toConversation(c),
        visitor: {
          customerId: c.customer_id,
          profile: v ? (JSON.parse(v.profile) as VisitorProfile) : {},
          tags: v ? (JSON.parse(v.tags) as string[]) : [],
        },
        agent: a ? toAgentInfo(a) : undefined,
        lastMessage: c.last_message_id === null ? undefined : last.get(c.last_message_id),
        labels: labelRows.filter((l) => l.conversation_id === c.id).map((l) => l.label),
        rating: c.csat_score === null ? null : { score: c.csat_score, comment: c.csat_comment, createdAt: Number(c.csat_at) },
      };
    });
}

/** An agent reply with its pending delivery, made the conversation's last message, in the transaction `trx`. */
export async function storeAgentReply(trx: Kysely<Database>, input: AgentReplyRow): Promise<StoredMessage> {
  const row = await trx
    .insertInto('channel_messages')
    .values({
      conversation_id: input.conversation.id,
      channel_id: input.conversation.channelId,
      direction: 'agent',
      msg_id: input.msgId,
      agent_id: input.agentId,
      bodies: JSON.stringify(input.bodies),
      ext: JSON.stringify(input.ext ?? {}),
      timestamp: input.now,
      created_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('deliveries')
    .values({
      id: input.deliveryId,
      tenant_id: input.conversation.tenantId,
      channel_id: input.conversation.channelId,
      conversation_id: input.conversation.id,
      message_id: row.id,
      customer_id: input.conversation.customerId,
      status: 'pending',
      body: input.pushBody,
      attempts: 0,
      next_attempt_at: input.now,
      last_error: null,
      created_at: input.now,
      updated_at: input.now,
    })
    .execute();
  await trx
    .updateTable('conversations')
    .set({
      last_message_id: row.id,
      updated_at: input.now,
      // An agent's first reply (an automatic message has no agent) ends the first-response time.
      ...(input.agentId === null ? {} : { first_reply_at: sql<number>`COALESCE(first_reply_at, ${input.now})` }),
    })
    .where('id', '=', input.conversation.id)
    .execute();
  return toMessage(row);
}
