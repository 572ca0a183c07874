import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  AcceptedMessage,
  ConversationDetails,
  ConversationsRepository,
  IncomingMessage,
  RoutingDirectory,
  TenantInfo,
  VisitorProfile,
} from '../../modules/channel/ports.js';
import type { ConversationsTable } from '../tables/channel.js';
import { isUniqueViolation } from '../errors.js';
import { GroupCommitter, type BatchMemo } from '../group-commit.js';
import { limitParam, precompiled, precompiledInsertId } from '../precompiled.js';
import type { DirectRunner } from '../sqlite/direct-runner.js';
import type { Database } from '../schema.js';
import { toTenant } from './accounts.js';
import { kyselyRoutingDirectory, toAgentInfo } from './channel-associations.js';
import { toConversation, toMessage, withDeliveries } from './channel-conversation-rows.js';
import { claimAgent, leastLoadedAgent, lockAgentWithRoom, moveConversation } from './channel-agent-claims.js';
import { OpenConversations, type LearntArrivals, type OpenArrival } from './open-conversations.js';

const MAX_TRIES = 4;

/** A duplicate key, or (PostgreSQL, several instances) a deadlock or serialization failure. */
const isRetryableConflict = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return isUniqueViolation(error) || code === '40P01' || code === '40001';
};

/** A conversation's VIP flag as stored: 1 when the visitor has one of the tenant's VIP tags. */
const vipFlag = (tags: string[], vipTags: string[]) => (tags.some((t) => vipTags.includes(t)) ? 1 : 0);

/** A customer message row with placeholder values, for the compiled inserts. */
const MESSAGE_ROW = { conversation_id: 0, channel_id: 0, direction: 'customer', msg_id: '', agent_id: null, bodies: '', ext: '', timestamp: 0, created_at: 0 } as const;

/** The parameters of the customer-message inserts, in MESSAGE_ROW's order. */
const messageParams = (conversationId: number, input: IncomingMessage): unknown[] => [
  conversationId,
  input.channelId,
  'customer',
  input.msgId,
  null,
  JSON.stringify(input.bodies),
  JSON.stringify(input.ext),
  input.timestamp,
  input.now,
];

/** The statements every customer message runs, compiled once (parameters in the order noted). */
function hotQueries() {
  return {
    // [tenantId]
    tenant: precompiled((db) => db.selectFrom('tenants').selectAll().where('id', '=', 0)),
    // messageParams(): [conversation_id, channel_id, direction, msg_id, agent_id, bodies, ext, timestamp, created_at]
    insertMessage: precompiledInsertId((db) => db.insertInto('channel_messages').values(MESSAGE_ROW)),
    // [channelId, 'customer', msgId, channelId, customerId]: in one read, the conversation a
    // message with this msg_id went to (null when it is new), the visitor, and their open
    // conversation (the visitor's and conversation's columns are null when there is none).
    arrival: precompiled((db) =>
      db
        .selectFrom(sql`(SELECT 1)`.as('one'))
        .leftJoin('channel_messages as s', (join) => join.on('s.channel_id', '=', 0).on('s.direction', '=', 'customer').on('s.msg_id', '=', ''))
        .leftJoin('channel_visitors as v', (join) => join.on('v.channel_id', '=', 0).on('v.customer_id', '=', ''))
        .leftJoin('conversations as c', (join) =>
          join.onRef('c.channel_id', '=', 'v.channel_id').onRef('c.customer_id', '=', 'v.customer_id').on(sql<boolean>`c.state <> 'closed'`),
        )
        .select(['s.conversation_id as seen_conversation_id', 'v.id as v_id', 'v.profile as v_profile', 'v.tags as v_tags'])
        .selectAll('c'),
    ),
    // [last_message_id, updated_at, id]; VIP left alone, so its queue index entry is not rewritten.
    touchConversation: precompiled((db) => db.updateTable('conversations').set({ last_message_id: 0, updated_at: 0 }).where('id', '=', 0).returningAll()),
    // [last_message_id, updated_at, vip, id]
    touchConversationVip: precompiled((db) => db.updateTable('conversations').set({ last_message_id: 0, updated_at: 0, vip: 0 }).where('id', '=', 0).returningAll()),
    // The known-customer path (SQLite): the epoch, an insert that yields no row for a reused
    // msg_id, and the bookkeeping update without reading the row back.
    // (conversation_epoch is SQLite's only, so it is not in the typed schema.)
    epoch: precompiled((db) => ({ compile: () => sql<{ n: number }>`SELECT n FROM conversation_epoch WHERE id = 1`.compile(db) })),
    // messageParams(); no id when the msg_id was seen before
    insertNewMessage: precompiledInsertId((db) =>
      db
        .insertInto('channel_messages')
        .values(MESSAGE_ROW)
        .onConflict((oc) => oc.columns(['channel_id', 'direction', 'msg_id']).doNothing()),
    ),
    // [last_message_id, updated_at, id]
    touchOnly: precompiled((db) => db.updateTable('conversations').set({ last_message_id: 0, updated_at: 0 }).where('id', '=', 0)),
  };
}

/** The batch memo's entry for open conversations: the epoch its transaction read, what it learnt. */
const OPEN = 'open-conversations';
type OpenInBatch = { epoch: number; learnt: LearntArrivals };

/** The batch memo's entry for the tenants its messages belong to, and its routing directory. */
const TENANTS = 'tenants';
type TenantsInBatch = { tenants: Map<number, TenantInfo | undefined>; directory: RoutingDirectory };

export interface ConversationsRepositoryOptions {
  /**
   * Keep known customers' open conversations in memory (open-conversations.ts). Only for a
   * database this process alone writes to, with the epoch triggers of SQLite migration 040.
   */
  rememberOpenConversations?: boolean;
  /** SQLite: run the group commit's precompiled statements straight on the driver. */
  direct?: DirectRunner | undefined;
}

export function kyselyConversationsRepository(db: Kysely<Database>, options: ConversationsRepositoryOptions = {}): ConversationsRepository {
  const q = hotQueries();
  const open = options.rememberOpenConversations ? new OpenConversations() : undefined;

  /** The known customer's open conversation, valid in this transaction (or undefined). */
  const knownArrival = async (trx: Kysely<Database>, key: string, memo: BatchMemo): Promise<OpenArrival | undefined> => {
    if (!open) return undefined;
    let batch = memo.get(OPEN) as OpenInBatch | undefined;
    if (!batch) {
      const [row] = await q.epoch(trx, []);
      batch = { epoch: Number(row?.n), learnt: new Map() };
      memo.set(OPEN, batch);
      open.sync(batch.epoch);
    }
    return batch.learnt.get(key) ?? open.get(key);
  };

  /**
   * A message from a known customer whose profile, tags and VIP flag it leaves as they are: one
   * insert, one update. Undefined when it does not apply (the msg_id was seen before, or the
   * visitor or the VIP flag changes): the full path then handles the message.
   */
  const acceptKnown = async (trx: Kysely<Database>, input: IncomingMessage, vipTags: string[], key: string, known: OpenArrival, memo: BatchMemo): Promise<AcceptedMessage | undefined> => {
    // The stored profile is the merge of every message's; this one changes it if it brings a
    // field with another value. Tags, when given, replace the stored ones.
    for (const field in input.profile) if (input.profile[field as keyof VisitorProfile] !== known.profile[field as keyof VisitorProfile]) return undefined;
    if (input.tags && (input.tags.length !== known.tags.length || input.tags.some((tag, i) => tag !== known.tags[i]))) return undefined;
    if (vipFlag(known.tags, vipTags) !== known.conversation.vip) return undefined;
    const conv = known.conversation;
    const messageId = await q.insertNewMessage(trx, messageParams(conv.id, input));
    if (messageId === undefined) return undefined;
    await q.touchOnly(trx, [messageId, input.now, conv.id]);
    // The same entry is learnt again (it stays the most recently used): a message changes only
    // the conversation's bookkeeping, which nothing reads from the cache (open-conversations.ts).
    // A new entry per message would live until the customer's next message, long enough for
    // the young generation's scavenges to copy and promote it.
    (memo.get(OPEN) as OpenInBatch).learnt.set(key, known);
    return { duplicate: false, msgId: input.msgId, conversation: toConversation(conv, input.now), opened: false };
  };

  const acceptIn = async (trx: Kysely<Database>, input: IncomingMessage, memo: BatchMemo): Promise<AcceptedMessage> => {
    // Messages of one batch mostly belong to one tenant: it is read once per transaction, and
    // the routing directory over the transaction is made once too.
    let batch = memo.get(TENANTS) as TenantsInBatch | undefined;
    if (!batch) memo.set(TENANTS, (batch = { tenants: new Map(), directory: kyselyRoutingDirectory(trx) }));
    let tenant = batch.tenants.get(input.tenantId);
    if (!batch.tenants.has(input.tenantId)) {
      const [row] = await q.tenant(trx, [input.tenantId]);
      tenant = row && toTenant(row);
      batch.tenants.set(input.tenantId, tenant);
    }
    const plan = input.plan(tenant, batch.directory);
    const key = OpenConversations.key(input.channelId, input.customerId);
    const known = await knownArrival(trx, key, memo);
    if (known) {
      const accepted = await acceptKnown(trx, input, plan.vipTags, key, known, memo);
      if (accepted) return accepted;
    }
    const [found] = await q.arrival(trx, [input.channelId, 'customer', input.msgId, input.channelId, input.customerId]);
    if (!found) throw new Error('the arrival read returns one row');
    if (found.seen_conversation_id !== null) {
      const conv = await trx.selectFrom('conversations').selectAll().where('id', '=', found.seen_conversation_id).executeTakeFirstOrThrow();
      return { duplicate: true, msgId: input.msgId, conversation: toConversation(conv), opened: false };
    }
    let visitor: { id: number; profile: string; tags: string } | undefined =
      found.v_id === null ? undefined : { id: found.v_id, profile: found.v_profile as string, tags: found.v_tags as string };
    let conv: Selectable<ConversationsTable> | undefined = found.id !== null ? (found as Selectable<ConversationsTable>) : undefined;
    let tags: string[];
    let profile: VisitorProfile;
    if (!visitor) {
      tags = input.tags ?? [];
      profile = input.profile;
      visitor = await trx
        .insertInto('channel_visitors')
        .values({
          channel_id: input.channelId,
          customer_id: input.customerId,
          profile: JSON.stringify(input.profile),
          tags: JSON.stringify(tags),
          created_at: input.now,
          updated_at: input.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      // A new visitor has no conversation (conversations are deleted with their visitor).
    } else {
      profile = { ...(JSON.parse(visitor.profile) as VisitorProfile), ...input.profile };
      tags = input.tags ?? (JSON.parse(visitor.tags) as string[]);
      const profileText = JSON.stringify(profile);
      const tagsText = JSON.stringify(tags);
      if (profileText !== visitor.profile || tagsText !== visitor.tags) {
        await trx.updateTable('channel_visitors').set({ profile: profileText, tags: tagsText, updated_at: input.now }).where('id', '=', visitor.id).execute();
        visitor = { id: visitor.id, profile: profileText, tags: tagsText };
      }
    }
    const vip = vipFlag(tags, plan.vipTags);

    let opened = false;
    if (!conv) {
      const route = await plan.route();
      const agentId = route.agentId ?? (await claimAgent(trx, route.queueId)) ?? null;
      conv = await trx
        .insertInto('conversations')
        .values({
          tenant_id: input.tenantId,
          channel_id: input.channelId,
          visitor_id: visitor.id,
          customer_id: input.customerId,
          state: agentId === null ? 'waiting' : 'processing',
          queue_id: route.queueId,
          agent_id: agentId,
          vip,
          queued_at: input.now,
          created_at: input.now,
          updated_at: input.now,
          closed_at: null,
          last_message_id: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      opened = true;
    }
    const messageId = (await q.insertMessage(trx, messageParams(conv.id, input))) as number;
    const [touched] =
      conv.vip === vip
        ? await q.touchConversation(trx, [messageId, input.now, conv.id])
        : await q.touchConversationVip(trx, [messageId, input.now, vip, conv.id]);
    const stored = touched as Selectable<ConversationsTable>;
    (memo.get(OPEN) as OpenInBatch | undefined)?.learnt.set(key, { profile, tags, conversation: stored });
    return { duplicate: false, msgId: input.msgId, conversation: toConversation(stored), opened };
  };
  // Customer messages are committed in groups: the send-message API's throughput is bound by
  // commits, and concurrent customers' messages share one. What a batch learnt about open
  // conversations is kept once it has committed.
  const committer = new GroupCommitter(db, acceptIn, {
    ...(options.direct ? { direct: options.direct } : {}),
    afterCommit: (memo) => {
      const batch = memo.get(OPEN) as OpenInBatch | undefined;
      if (batch) open?.keep(batch.learnt, batch.epoch);
    },
  });

  return {
    async acceptCustomerMessage(input) {
      // A concurrent request may insert the same visitor, open conversation or msg_id first; the
      // unique constraints make this transaction fail, and the retry then finds their rows.
      for (let attempt = 1; ; attempt++) {
        try {
          return await committer.submit(input);
        } catch (error) {
          if (!isRetryableConflict(error) || attempt >= MAX_TRIES) throw error;
        }
      }
    },
    async get(tenantId, id) {
      const row = await db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toConversation(row);
    },
    async details(tenantId, ids): Promise<ConversationDetails[]> {
      if (ids.length === 0) return [];
      const convs = await db.selectFrom('conversations').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute();
      const visitorIds = [...new Set(convs.map((c) => c.visitor_id))];
      const agentIds = [...new Set(convs.map((c) => c.agent_id).filter((a): a is number => a !== null))];
      const lastIds = convs.map((c) => c.last_message_id).filter((m): m is number => m !== null);
      const [visitors, agents, lastRows] = await Promise.all([
        db.selectFrom('channel_visitors').selectAll().where('id', 'in', visitorIds).execute(),
        agentIds.length ? db.selectFrom('users').selectAll().where('id', 'in', agentIds).execute() : Promise.resolve([]),
        lastIds.length ? db.selectFrom('channel_messages').selectAll().where('id', 'in', lastIds).execute() : Promise.resolve([]),
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
          };
        });
    },
    async list(tenantId, filter, limit) {
      let q = db.selectFrom('conversations').select('id').where('tenant_id', '=', tenantId);
      if (filter.state) q = q.where('state', '=', filter.state);
      if (filter.queueId !== undefined) q = q.where('queue_id', '=', filter.queueId);
      if (filter.agentId !== undefined) q = q.where('agent_id', '=', filter.agentId);
      q = filter.state === 'waiting' ? q.orderBy('vip', 'desc').orderBy('queued_at', 'asc').orderBy('id', 'asc') : q.orderBy('updated_at', 'desc').orderBy('id', 'desc');
      return (await q.limit(limitParam(limit)).execute()).map((r) => r.id);
    },
    async assign(id, from, to, now) {
      if (to.withinCapacity && to.agentId !== null) {
        const agentId = to.agentId;
        return db.transaction().execute(async (trx) => {
          if (!(await lockAgentWithRoom(trx, agentId))) return false;
          return moveConversation(trx, id, from, to, now);
        });
      }
      return moveConversation(db, id, from, to, now);
    },
    leastLoadedAgent: (queueId) => leastLoadedAgent(db, queueId),
    async nextWaiting(queueId) {
      const row = await db
        .selectFrom('conversations')
        .select('id')
        .where('queue_id', '=', queueId)
        .where('state', '=', 'waiting')
        .orderBy('vip', 'desc')
        .orderBy('queued_at', 'asc')
        .orderBy('id', 'asc')
        .executeTakeFirst();
      return row?.id;
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
    async storeAgentReply(input, inTransaction) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('channel_messages')
          .values({
            conversation_id: input.conversation.id,
            channel_id: input.conversation.channelId,
            direction: 'agent',
            msg_id: input.msgId,
            agent_id: input.agentId,
            bodies: JSON.stringify(input.bodies),
            ext: '{}',
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
        await trx.updateTable('conversations').set({ last_message_id: row.id, updated_at: input.now }).where('id', '=', input.conversation.id).execute();
        await inTransaction(trx);
        return toMessage(row);
      });
    },
  };
}
