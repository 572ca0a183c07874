/**
 * The ArrivalStore (modules/channel/arrival-store.ts) over Kysely, for both engines: customer
 * messages are committed in groups (storage/group-commit.ts), since the send-message API's
 * throughput is bound by commits and concurrent customers' messages can share one. Each batch's
 * transaction object reads a tenant once for all its messages and builds one routing directory;
 * on a single writer it also remembers known customers' open conversations
 * (storage/sqlite/open-conversations.ts). The customer-message statements are compiled once.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  Arrival,
  ArrivalStore,
  ArrivalTransaction,
  IncomingMessage,
  KnownArrival,
  NewConversation,
} from '../../modules/channel/arrival-store.js';
import type { AgentLoad, Conversation, RoutingDirectory, TenantInfo, VisitorProfile } from '../../modules/channel/ports.js';
import type { ConversationsTable } from '../tables/channel.js';
import { isUniqueViolation } from '../errors.js';
import { GroupCommitter, type BatchMemo } from '../group-commit.js';
import { precompiled, precompiledInsertId } from '../precompiled.js';
import type { DirectRunner } from '../sqlite/direct-runner.js';
import type { Database } from '../schema.js';
import type { OpenConversations, OpenConversationsInTransaction } from '../sqlite/open-conversations.js';
import { toTenant } from './accounts.js';
import { agentLoads, lockAgent } from './channel-agent-claims.js';
import { kyselyRoutingDirectory } from './channel-associations.js';
import { toConversation } from './channel-conversation-rows.js';

const MAX_TRIES = 4;

/** A duplicate key, or (PostgreSQL, several instances) a deadlock or serialization failure. */
const isRetryableConflict = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return isUniqueViolation(error) || code === '40P01' || code === '40001';
};

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
    // The known-customer path: an insert that yields no row for a reused msg_id, and the
    // bookkeeping update without reading the row back.
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

type HotQueries = ReturnType<typeof hotQueries>;

const NOTHING_KNOWN: Promise<undefined> = Promise.resolve(undefined);

/** One batch's transaction: what its messages share (tenants read, the directory, the known customers learnt). */
class KyselyArrivalTransaction implements ArrivalTransaction {
  readonly directory: RoutingDirectory;
  readonly remembers: boolean;
  /** Messages of one batch mostly belong to one tenant: it is read once per transaction. */
  private readonly tenants = new Map<number, TenantInfo | undefined>();

  constructor(
    private readonly trx: Kysely<Database>,
    private readonly q: HotQueries,
    private readonly open: OpenConversationsInTransaction | undefined,
  ) {
    this.directory = kyselyRoutingDirectory(trx);
    this.remembers = open !== undefined;
  }

  tenant(id: number): TenantInfo | undefined | Promise<TenantInfo | undefined> {
    return this.tenants.has(id) ? this.tenants.get(id) : this.readTenant(id);
  }

  private async readTenant(id: number): Promise<TenantInfo | undefined> {
    const [row] = await this.q.tenant(this.trx, [id]);
    const tenant = row && toTenant(row);
    this.tenants.set(id, tenant);
    return tenant;
  }

  knownArrival(channelId: number, customerId: string): Promise<KnownArrival | undefined> {
    return this.open ? this.open.get(channelId, customerId) : NOTHING_KNOWN;
  }

  remember(channelId: number, customerId: string, arrival: KnownArrival): void {
    this.open?.learn(channelId, customerId, arrival);
  }

  /** For a duplicate only `seenConversationId` is filled in: nothing else is needed then. */
  async arrival(input: IncomingMessage): Promise<Arrival> {
    const [found] = await this.q.arrival(this.trx, [input.channelId, 'customer', input.msgId, input.channelId, input.customerId]);
    if (!found) throw new Error('the arrival read returns one row');
    if (found.seen_conversation_id !== null) return { seenConversationId: found.seen_conversation_id, visitor: undefined, open: undefined };
    return {
      seenConversationId: null,
      visitor:
        found.v_id === null
          ? undefined
          : { id: found.v_id, profile: JSON.parse(found.v_profile as string) as VisitorProfile, tags: JSON.parse(found.v_tags as string) as string[] },
      open: found.id !== null ? toConversation(found as Selectable<ConversationsTable>) : undefined,
    };
  }

  async conversation(id: number): Promise<Conversation> {
    return toConversation(await this.trx.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
  }

  async insertVisitor(input: IncomingMessage, tags: string[]): Promise<number> {
    const row = await this.trx
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
    return row.id;
  }

  async updateVisitor(id: number, profile: VisitorProfile, tags: string[], now: number): Promise<void> {
    await this.trx.updateTable('channel_visitors').set({ profile: JSON.stringify(profile), tags: JSON.stringify(tags), updated_at: now }).where('id', '=', id).execute();
  }

  async openConversation(row: NewConversation): Promise<Conversation> {
    const opened = await this.trx
      .insertInto('conversations')
      .values({
        tenant_id: row.tenantId,
        channel_id: row.channelId,
        visitor_id: row.visitorId,
        customer_id: row.customerId,
        state: row.state,
        queue_id: row.queueId,
        agent_id: row.agentId,
        vip: row.vip ? 1 : 0,
        queued_at: row.now,
        created_at: row.now,
        updated_at: row.now,
        closed_at: null,
        last_message_id: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toConversation(opened);
  }

  async appendMessage(conversationId: number, input: IncomingMessage, vip: boolean | undefined): Promise<Conversation> {
    const messageId = (await this.q.insertMessage(this.trx, messageParams(conversationId, input))) as number;
    const [touched] =
      vip === undefined
        ? await this.q.touchConversation(this.trx, [messageId, input.now, conversationId])
        : await this.q.touchConversationVip(this.trx, [messageId, input.now, vip ? 1 : 0, conversationId]);
    return toConversation(touched as Selectable<ConversationsTable>);
  }

  insertMessageIfNew(conversationId: number, input: IncomingMessage): Promise<number | undefined> {
    return this.q.insertNewMessage(this.trx, messageParams(conversationId, input));
  }

  touchConversation(conversationId: number, messageId: number, now: number): Promise<unknown> {
    return this.q.touchOnly(this.trx, [messageId, now, conversationId]);
  }

  agentLoads(queueId: number): Promise<AgentLoad[]> {
    return agentLoads(this.trx, queueId);
  }

  lockAgent(agentId: number): Promise<AgentLoad | undefined> {
    return lockAgent(this.trx, agentId);
  }

  /** After the batch committed: the known customers it learnt are kept. */
  committed(): void {
    this.open?.committed();
  }
}

export interface ArrivalStoreOptions {
  /**
   * Remember known customers' open conversations here. Only for a database this process alone
   * writes to, with the epoch triggers of SQLite migration 040 (the composition root decides).
   */
  openConversations?: OpenConversations | undefined;
  /** SQLite: run the group commit's precompiled statements straight on the driver. */
  direct?: DirectRunner | undefined;
}

export function kyselyArrivalStore(db: Kysely<Database>, options: ArrivalStoreOptions = {}): ArrivalStore {
  const q = hotQueries();
  return {
    inBatches(step) {
      // The group commit hands every write of a batch the same memo: the batch's transaction
      // object is found by it.
      const batches = new WeakMap<BatchMemo, KyselyArrivalTransaction>();
      const write = (trx: Kysely<Database>, input: IncomingMessage, memo: BatchMemo) => {
        let tx = batches.get(memo);
        if (!tx) batches.set(memo, (tx = new KyselyArrivalTransaction(trx, q, options.openConversations?.inTransaction(trx))));
        return step(tx, input);
      };
      const committer = new GroupCommitter(db, write, {
        ...(options.direct ? { direct: options.direct } : {}),
        afterCommit: (memo) => batches.get(memo)?.committed(),
      });
      return async (input) => {
        // A concurrent request may insert the same visitor, open conversation or msg_id first; the
        // unique constraints make this transaction fail, and the retry then finds their rows.
        for (let attempt = 1; ; attempt++) {
          try {
            return await committer.submit(input);
          } catch (error) {
            if (!isRetryableConflict(error) || attempt >= MAX_TRIES) throw error;
          }
        }
      };
    },
  };
}
