/**
 * The arrival steps of a channel transaction (modules/channel/arrival-store.ts) over Kysely, for
 * both engines. Customer messages are committed in groups (the unit of work's group commit), so
 * one transaction object serves a batch: it reads a tenant once for all its messages and builds
 * one routing directory; on a single writer it also answers a known customer's arrival from the
 * memory of their open conversation (storage/sqlite/open-conversations.ts), and what the batch
 * learnt is kept once it committed. The customer-message statements are compiled once.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Arrival, ArrivalTransaction, IncomingMessage, NewConversation } from '../../modules/channel/arrival-store.js';
import type { AgentLoad, Conversation, RoutingDirectory, TenantInfo, VisitorProfile } from '../../modules/channel/ports.js';
import type { ConversationsTable } from '../tables/channel.js';
import { precompiled, precompiledInsertId } from '../precompiled.js';
import type { Database } from '../schema.js';
import type { TransactionContext } from '../unit-of-work.js';
import type { KnownArrival, OpenConversations, OpenConversationsInTransaction } from '../sqlite/open-conversations.js';
import { toTenant } from './accounts.js';
import { agentLoads, lockAgent } from './channel-agent-claims.js';
import { kyselyRoutingDirectory } from './channel-associations.js';
import { toConversation } from './channel-conversation-rows.js';

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
    // A known customer's message (its arrival from memory): an insert that yields no row for a
    // reused msg_id, and the bookkeeping update without reading the row back.
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

/** The customer of the message being written: what the transaction knows of them, to remember after commit. */
interface Customer {
  channelId: number;
  customerId: string;
  /** The arrival came from memory (the msg_id was not checked: `appendMessage` finds a reused one). */
  known: KnownArrival | undefined;
  profile: VisitorProfile;
  tags: string[];
  conversation: Conversation | undefined;
}

/** One batch's transaction: what its messages share (tenants read, the directory, the known customers learnt). */
export class KyselyArrivalTransaction implements ArrivalTransaction {
  readonly directory: RoutingDirectory;
  /** Messages of one batch mostly belong to one tenant: it is read once per transaction. */
  private readonly tenants = new Map<number, Promise<TenantInfo | undefined>>();
  private current: Customer | undefined;

  constructor(
    private readonly trx: Kysely<Database>,
    private readonly q: HotQueries,
    private readonly open: OpenConversationsInTransaction | undefined,
  ) {
    this.directory = kyselyRoutingDirectory(trx);
  }

  tenant(id: number): Promise<TenantInfo | undefined> {
    let tenant = this.tenants.get(id);
    if (!tenant) this.tenants.set(id, (tenant = this.q.tenant(this.trx, [id]).then(([row]) => row && toTenant(row))));
    return tenant;
  }

  /** For a duplicate only `seenConversationId` is filled in: nothing else is needed then. */
  async arrival(input: IncomingMessage): Promise<Arrival> {
    const known = this.open ? await this.open.get(input.channelId, input.customerId) : undefined;
    if (known) {
      const { profile, tags, conversation } = known;
      this.current = { channelId: input.channelId, customerId: input.customerId, known, profile, tags, conversation };
      return { seenConversationId: null, visitor: { id: conversation.visitorId, profile, tags }, open: conversation };
    }
    const [found] = await this.q.arrival(this.trx, [input.channelId, 'customer', input.msgId, input.channelId, input.customerId]);
    if (!found) throw new Error('the arrival read returns one row');
    if (found.seen_conversation_id !== null) return { seenConversationId: found.seen_conversation_id, visitor: undefined, open: undefined };
    const visitor =
      found.v_id === null ? undefined : { id: found.v_id, profile: JSON.parse(found.v_profile as string) as VisitorProfile, tags: JSON.parse(found.v_tags as string) as string[] };
    const open = found.id !== null ? toConversation(found as Selectable<ConversationsTable>) : undefined;
    this.current = { channelId: input.channelId, customerId: input.customerId, known: undefined, profile: visitor?.profile ?? input.profile, tags: visitor?.tags ?? [], conversation: open };
    return { seenConversationId: null, visitor, open };
  }

  async duplicateOf(input: IncomingMessage): Promise<Conversation> {
    const row = await this.trx
      .selectFrom('channel_messages as m')
      .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
      .selectAll('c')
      .where('m.channel_id', '=', input.channelId)
      .where('m.direction', '=', 'customer')
      .where('m.msg_id', '=', input.msgId)
      .executeTakeFirstOrThrow();
    return toConversation(row);
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
    if (this.current) Object.assign(this.current, { profile: input.profile, tags });
    return row.id;
  }

  async updateVisitor(id: number, profile: VisitorProfile, tags: string[], now: number): Promise<void> {
    await this.trx.updateTable('channel_visitors').set({ profile: JSON.stringify(profile), tags: JSON.stringify(tags), updated_at: now }).where('id', '=', id).execute();
    if (this.current) Object.assign(this.current, { profile, tags });
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
        assigned_at: row.agentId === null ? null : row.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const conversation = toConversation(opened);
    if (this.current) this.current.conversation = conversation;
    return conversation;
  }

  async appendMessage(conversationId: number, input: IncomingMessage, vip: boolean | undefined): Promise<Conversation | undefined> {
    const current = this.current;
    let conversation: Conversation;
    if (current?.known && current.conversation) {
      // The msg_id was not looked up: an insert that yields no row tells a duplicate.
      const messageId = await this.q.insertNewMessage(this.trx, messageParams(conversationId, input));
      if (messageId === undefined) return undefined;
      if (vip === undefined) {
        await this.q.touchOnly(this.trx, [messageId, input.now, conversationId]);
        // The same entry is remembered again (it stays the most recently used): a message changes
        // only the conversation's bookkeeping, which nothing reads from memory.
        this.open?.learn(current.channelId, current.customerId, current.known);
        return { ...current.conversation, updatedAt: input.now };
      }
      conversation = await this.touch(messageId, input.now, conversationId, vip);
    } else {
      const messageId = (await this.q.insertMessage(this.trx, messageParams(conversationId, input))) as number;
      conversation = await this.touch(messageId, input.now, conversationId, vip);
    }
    if (current) this.remember(current, conversation);
    return conversation;
  }

  private async touch(messageId: number, now: number, conversationId: number, vip: boolean | undefined): Promise<Conversation> {
    const [touched] =
      vip === undefined
        ? await this.q.touchConversation(this.trx, [messageId, now, conversationId])
        : await this.q.touchConversationVip(this.trx, [messageId, now, vip ? 1 : 0, conversationId]);
    return toConversation(touched as Selectable<ConversationsTable>);
  }

  private remember(customer: Customer, conversation: Conversation): void {
    this.open?.learn(customer.channelId, customer.customerId, { profile: customer.profile, tags: customer.tags, conversation });
  }

  agentLoads(queueId: number): Promise<AgentLoad[]> {
    return agentLoads(this.trx, queueId);
  }

  lockAgent(agentId: number): Promise<AgentLoad | undefined> {
    return lockAgent(this.trx, agentId);
  }
}

/**
 * The arrival steps of each transaction. `openConversations`: remember known customers' open
 * conversations, only for a database this process alone writes to, with the epoch triggers of
 * SQLite migration 040 (the composition root decides).
 */
export function kyselyArrivals(options: { openConversations?: OpenConversations | undefined } = {}): (ctx: TransactionContext) => ArrivalTransaction {
  const q = hotQueries();
  return (ctx) => {
    const open = options.openConversations?.inTransaction(ctx.trx);
    if (open) ctx.afterCommit(() => open.committed());
    return new KyselyArrivalTransaction(ctx.trx, q, open);
  };
}
