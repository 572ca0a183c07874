/**
 * The conversation list (ConversationsRepository.list and .counts): the filters, the agent's view,
 * keyset pages in each sort order, and the inbox's counts. The searches go through indexes where
 * they can: message text through each engine's text index (text-search.ts, kept by the background
 * indexer), labels through `conversation_labels_tenant_label`, customer tags through the
 * visitors' tags (a GIN index on PostgreSQL; on SQLite a read of the tenant's tagged visitors).
 * The latest-activity order over the closed conversations goes through the closed conversations'
 * index (`latestByIndexes`). SQLite folds case with `parley_lower` (sqlite/open.ts), which
 * folds as JavaScript does, where SQLite's own `lower` folds ASCII only.
 */
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { ConversationCountsRow, ConversationFilter, ConversationListPosition, ConversationOrder, ConversationPageRequest } from '../../modules/channel/ports.js';
import { limitParam } from '../precompiled.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { hasMessageText, readWatermark } from './text-search.js';

/** Which half of the `label` filter a query asks: the conversation's labels, its customer's tags, or either. */
export type LabelHalf = 'labels' | 'tags' | 'either';

/** The conversation has the label `label` (`labels`), its customer has it as a tag (`tags`), or either. */
function hasLabel(engine: Engine, tenantId: number, label: string, half: LabelHalf): Expression<SqlBool> {
  const labelled = sql<SqlBool>`conversations.id IN (SELECT l.conversation_id FROM conversation_labels l WHERE l.tenant_id = ${tenantId} AND l.label = ${label})`;
  const tagged =
    engine === 'sqlite'
      ? sql<SqlBool>`conversations.visitor_id IN (SELECT v.id FROM rest_channels r JOIN channel_visitors v ON v.channel_id = r.id, json_each(v.tags) t
          WHERE r.tenant_id = ${tenantId} AND v.tags <> '[]' AND t.value = ${label})`
      : sql<SqlBool>`conversations.visitor_id IN (SELECT v.id FROM channel_visitors v WHERE v.tags::jsonb @> jsonb_build_array(${label}::text))`;
  if (half === 'labels') return labelled;
  if (half === 'tags') return tagged;
  return sql<SqlBool>`(${labelled} OR ${tagged})`;
}

/** A query's view of the search index: its watermark (text-search.ts `readWatermark`), read once per list or count. */
interface Search {
  watermark: number;
  half?: LabelHalf;
}

/** The conversations of the tenant that pass the filter, in the agent's view: the WHERE of the list and the counts. */
function filtered(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter, search: Search) {
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
  if (filter.label !== undefined) q = q.where(hasLabel(engine, tenantId, filter.label, search.half ?? 'either'));
  if (filter.text !== undefined) q = q.where(hasMessageText(engine, filter.text, search.watermark));
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

/** `a` comes before `b` in `order` (the ORDER BY of `ordered`, in JavaScript). */
function compare(order: ConversationOrder, a: ConversationListPosition, b: ConversationListPosition): number {
  switch (order) {
    case 'queue':
      return Number(b.vip) - Number(a.vip) || a.queuedAt - b.queuedAt || a.id - b.id;
    case 'waited':
      return a.queuedAt - b.queuedAt || a.id - b.id;
    case 'newest':
      return b.id - a.id;
    case 'recent':
      return b.updatedAt - a.updatedAt || b.id - a.id;
  }
}

/** Merges pages read apart into one page of `limit` in `order`, each conversation once. */
function mergePages(order: ConversationOrder, limit: number, pages: ConversationListPosition[][]): ConversationListPosition[] {
  const byId = new Map(pages.flat().map((p) => [p.id, p]));
  return [...byId.values()].sort((a, b) => compare(order, a, b)).slice(0, limit);
}

const toPosition = (r: { id: number; vip: number; queued_at: number; updated_at: number }): ConversationListPosition => ({
  id: r.id,
  vip: r.vip === 1,
  queuedAt: r.queued_at,
  updatedAt: r.updated_at,
});

async function listPage(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter, page: ConversationPageRequest, search: Search) {
  const q = filtered(db, engine, tenantId, filter, search).select(['id', 'vip', 'queued_at', 'updated_at']);
  const rows = await ordered(q, page.order, page.after).limit(limitParam(page.limit)).execute();
  return rows.map(toPosition);
}

/** `sort=latest` over every state or the closed ones, without a search or a customer: `latestByIndexes` serves it. */
function servedByLatestIndexes(filter: ConversationFilter, page: ConversationPageRequest): boolean {
  const states = filter.state === undefined || filter.state === 'closed';
  return page.order === 'recent' && states && filter.text === undefined && filter.label === undefined && filter.customerId === undefined && filter.queuedBefore === undefined;
}

/** Closed conversations whose latest activity is not their `closed_at`: marked by the indexer, or with a message past its watermark. */
const lateActivity = (tenantId: number, watermark: number) =>
  sql<SqlBool>`conversations.id IN (SELECT a.conversation_id FROM conversation_late_activity a WHERE a.tenant_id = ${tenantId}
    UNION SELECT m.conversation_id FROM channel_messages m WHERE m.id > ${watermark})`;

/**
 * The latest-activity order without an index on `updated_at` (the send path moves it with every
 * message). Three pages read apart and merged:
 * - the open conversations (few; read through `conversations_queue` and sorted);
 * - the closed ones whose latest activity is their close (`updated_at = closed_at`), walked from the
 *   end of `conversations_closed_latest` (migration 127);
 * - the closed ones with activity after their close: marked by the background indexer in
 *   `conversation_late_activity`, or with a message past its watermark (not indexed yet).
 * Each conversation is in one of these with its own `updated_at`, so the merge is the exact order.
 */
async function latestByIndexes(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter, page: ConversationPageRequest, search: Search) {
  const pages: Array<Promise<ConversationListPosition[]>> = [];
  const columns = ['id', 'vip', 'queued_at', 'updated_at'] as const;
  const limit = limitParam(page.limit);
  if (filter.state === undefined) {
    const open = filtered(db, engine, tenantId, filter, search).where('state', 'in', ['waiting', 'processing']).select(columns);
    pages.push(ordered(open, 'recent', page.after).limit(limit).execute().then((rows) => rows.map(toPosition)));
  }
  let closed = filtered(db, engine, tenantId, filter, search).where('state', '=', 'closed').where(sql<SqlBool>`conversations.updated_at = conversations.closed_at`);
  // There `updated_at` is `closed_at`: the time bounds become the index's range too.
  if (filter.updatedFrom !== undefined) closed = closed.where('closed_at', '>=', filter.updatedFrom);
  if (filter.updatedTo !== undefined) closed = closed.where('closed_at', '<=', filter.updatedTo);
  const after = page.after;
  if (after) closed = closed.where((eb) => eb.or([eb('closed_at', '<', after.updatedAt), eb.and([eb('closed_at', '=', after.updatedAt), eb('id', '<', after.id)])]));
  pages.push(closed.select(columns).orderBy('closed_at', 'desc').orderBy('id', 'desc').limit(limit).execute().then((rows) => rows.map(toPosition)));
  const late = filtered(db, engine, tenantId, filter, search).where('state', '=', 'closed').where(lateActivity(tenantId, search.watermark)).select(columns);
  pages.push(ordered(late, 'recent', page.after).limit(limit).execute().then((rows) => rows.map(toPosition)));
  return mergePages('recent', page.limit, await Promise.all(pages));
}

/**
 * One page of positions. With a `label`, the page of the labelled conversations and the page of
 * the tagged customers' conversations are read apart and merged: each half then goes through its
 * own index, where one query with an OR of the two would make the planner walk every conversation
 * of the tenant looking for a label that few or none carry. The latest-activity order over the
 * closed conversations, without a search, goes through `latestByIndexes`.
 */
export async function listConversations(
  db: Kysely<Database>,
  engine: Engine,
  tenantId: number,
  filter: ConversationFilter,
  page: ConversationPageRequest,
): Promise<ConversationListPosition[]> {
  const latest = servedByLatestIndexes(filter, page);
  const watermark = filter.text !== undefined || latest ? await readWatermark(db, engine) : 0;
  if (filter.label !== undefined) {
    const labelled = await listPage(db, engine, tenantId, filter, page, { watermark, half: 'labels' });
    const tagged = await listPage(db, engine, tenantId, filter, page, { watermark, half: 'tags' });
    return mergePages(page.order, page.limit, [labelled, tagged]);
  }
  if (latest) return latestByIndexes(db, engine, tenantId, filter, page, { watermark });
  return listPage(db, engine, tenantId, filter, page, { watermark });
}

/** The inbox's counts: one pass over the open conversations the filter keeps (the `conversations_queue` index leads with tenant and state). */
export async function countConversations(db: Kysely<Database>, engine: Engine, tenantId: number, filter: ConversationFilter, me: number): Promise<ConversationCountsRow> {
  const watermark = filter.text !== undefined ? await readWatermark(db, engine) : 0;
  const row = await filtered(db, engine, tenantId, filter, { watermark })
    .where('state', 'in', ['waiting', 'processing'])
    .select([
      sql<number | string | null>`SUM(CASE WHEN state = 'waiting' THEN 1 ELSE 0 END)`.as('waiting'),
      sql<number | string | null>`SUM(CASE WHEN state = 'processing' AND agent_id = ${me} THEN 1 ELSE 0 END)`.as('mine'),
      sql<number | string | null>`SUM(CASE WHEN state = 'processing' AND (agent_id IS NULL OR agent_id <> ${me}) THEN 1 ELSE 0 END)`.as('team'),
    ])
    .executeTakeFirst();
  return { waiting: Number(row?.waiting ?? 0), mine: Number(row?.mine ?? 0), team: Number(row?.team ?? 0) };
}
