/**
 * The conversation list (ConversationsRepository.list and .counts): the filters, the agent's view,
 * keyset pages in each sort order, and the inbox's counts. Searching message text and customer tags reads the stored JSON, which
 * each engine does its own way; SQLite folds case with `parley_lower` (sqlite/open.ts), which
 * folds as JavaScript does, where SQLite's own `lower` folds ASCII only.
 */
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { ConversationCountsRow, ConversationFilter, ConversationListPosition, ConversationOrder, ConversationPageRequest } from '../../modules/channel/ports.js';
import { limitParam } from '../precompiled.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';

/** Some `txt` body of one of the conversation's messages contains `folded` (already lower-case). */
function hasText(engine: Engine, folded: string): Expression<SqlBool> {
  return engine === 'sqlite'
    ? sql<SqlBool>`EXISTS (SELECT 1 FROM channel_messages m, json_each(m.bodies) b
        WHERE m.conversation_id = conversations.id AND json_extract(b.value, '$.type') = 'txt'
          AND instr(parley_lower(json_extract(b.value, '$.msg')), ${folded}) > 0)`
    : sql<SqlBool>`EXISTS (SELECT 1 FROM channel_messages m, jsonb_array_elements(m.bodies::jsonb) b
        WHERE m.conversation_id = conversations.id AND b->>'type' = 'txt'
          AND strpos(lower(b->>'msg'), ${folded}::text) > 0)`;
}

/** The conversation has the label `label`, or its customer has it as a tag. */
function hasLabel(engine: Engine, label: string): Expression<SqlBool> {
  const labelled = sql<SqlBool>`EXISTS (SELECT 1 FROM conversation_labels l WHERE l.conversation_id = conversations.id AND l.label = ${label})`;
  return engine === 'sqlite'
    ? sql<SqlBool>`(${labelled} OR EXISTS (SELECT 1 FROM channel_visitors v, json_each(v.tags) t WHERE v.id = conversations.visitor_id AND t.value = ${label}))`
    : sql<SqlBool>`(${labelled} OR EXISTS (SELECT 1 FROM channel_visitors v WHERE v.id = conversations.visitor_id AND v.tags::jsonb @> jsonb_build_array(${label}::text)))`;
}

/** The conversations of the tenant that pass the filter, in the agent's view: the WHERE of the list and the counts. */
function filtered(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter) {
  let q = db.selectFrom('conversations').where('tenant_id', '=', tenantId);
  if (filter.state) q = q.where('state', '=', filter.state);
  if (filter.queueId !== undefined) q = q.where('queue_id', '=', filter.queueId);
  if (filter.agentId !== undefined) q = q.where('agent_id', '=', filter.agentId);
  const other = filter.notAgentId;
  if (other !== undefined) q = q.where((eb) => eb.or([eb('agent_id', 'is', null), eb('agent_id', '<>', other)]));
  if (filter.customerId !== undefined) q = q.where('customer_id', '=', filter.customerId);
  if (filter.vip !== undefined) q = q.where('vip', '=', filter.vip ? 1 : 0);
  if (filter.queuedBefore !== undefined) q = q.where('state', '=', 'waiting').where('queued_at', '<=', filter.queuedBefore);
  if (filter.updatedFrom !== undefined) q = q.where('updated_at', '>=', filter.updatedFrom);
  if (filter.updatedTo !== undefined) q = q.where('updated_at', '<=', filter.updatedTo);
  const visible = filter.visibleTo;
  if (visible) {
    q = visible.queueIds.length
      ? q.where((eb) => eb.or([eb('agent_id', '=', visible.agentId), eb('queue_id', 'in', visible.queueIds)]))
      : q.where('agent_id', '=', visible.agentId);
  }
  if (filter.label !== undefined) q = q.where(hasLabel(engine, filter.label));
  if (filter.text !== undefined) q = q.where(hasText(engine, filter.text));
  return q;
}

/** Rows after `after` in `order`, and the ORDER BY of that order. */
function ordered<O>(q: SelectQueryBuilder<Database, 'conversations', O>, order: ConversationOrder, after: ConversationListPosition | undefined): SelectQueryBuilder<Database, 'conversations', O> {
  switch (order) {
    case 'queue':
      if (after) {
        const vip = after.vip ? 1 : 0;
        q = q.where((eb) =>
          eb.or([
            eb('vip', '<', vip),
            eb.and([eb('vip', '=', vip), eb.or([eb('queued_at', '>', after.queuedAt), eb.and([eb('queued_at', '=', after.queuedAt), eb('id', '>', after.id)])])]),
          ]),
        );
      }
      return q.orderBy('vip', 'desc').orderBy('queued_at', 'asc').orderBy('id', 'asc');
    case 'waited':
      if (after) q = q.where((eb) => eb.or([eb('queued_at', '>', after.queuedAt), eb.and([eb('queued_at', '=', after.queuedAt), eb('id', '>', after.id)])]));
      return q.orderBy('queued_at', 'asc').orderBy('id', 'asc');
    case 'newest':
      if (after) q = q.where('id', '<', after.id);
      return q.orderBy('id', 'desc');
    case 'recent':
      if (after) q = q.where((eb) => eb.or([eb('updated_at', '<', after.updatedAt), eb.and([eb('updated_at', '=', after.updatedAt), eb('id', '<', after.id)])]));
      return q.orderBy('updated_at', 'desc').orderBy('id', 'desc');
  }
}

export async function listConversations(
  db: Kysely<Database>,
  engine: Engine,
  tenantId: number,
  filter: ConversationFilter,
  page: ConversationPageRequest,
): Promise<ConversationListPosition[]> {
  const q = filtered(db, engine, tenantId, filter).select(['id', 'vip', 'queued_at', 'updated_at']);
  const rows = await ordered(q, page.order, page.after).limit(limitParam(page.limit)).execute();
  return rows.map((r) => ({ id: r.id, vip: r.vip === 1, queuedAt: r.queued_at, updatedAt: r.updated_at }));
}

/** The inbox's counts: one pass over the open conversations the filter keeps (the `conversations_queue` index leads with tenant and state). */
export async function countConversations(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter, me: number): Promise<ConversationCountsRow> {
  const row = await filtered(db, engine, tenantId, filter)
    .where('state', 'in', ['waiting', 'processing'])
    .select([
      sql<number | string | null>`SUM(CASE WHEN state = 'waiting' THEN 1 ELSE 0 END)`.as('waiting'),
      sql<number | string | null>`SUM(CASE WHEN state = 'processing' AND agent_id = ${me} THEN 1 ELSE 0 END)`.as('mine'),
      sql<number | string | null>`SUM(CASE WHEN state = 'processing' AND (agent_id IS NULL OR agent_id <> ${me}) THEN 1 ELSE 0 END)`.as('team'),
    ])
    .executeTakeFirst();
  return { waiting: Number(row?.waiting ?? 0), mine: Number(row?.mine ?? 0), team: Number(row?.team ?? 0) };
}
