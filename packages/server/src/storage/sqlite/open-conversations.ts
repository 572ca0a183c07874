/**
 * Known customers' open conversations, kept in memory for the send-message path on a
 * single-writer engine (SQLite: this process owns the file). With them a message from a known
 * customer is one insert and one small update, instead of a read of the visitor, the open
 * conversation and the msg_id first (the arrival steps answer from here: channel-arrivals.ts).
 *
 * An entry is valid until its customer's conversation or visitor changes (migration 129:
 * triggers write the customer of every such change, except the per-message bookkeeping, to
 * `conversation_changes`). Each write transaction reads the changes past the last one seen once
 * and calls `forget`, which drops those customers alone. What a transaction learns is kept only
 * once it has committed, and not for a customer changed after the transaction read the changes.
 */
import type { Kysely } from 'kysely';
import type { Conversation, VisitorProfile } from '../../modules/channel/ports.js';
import { precompiled } from '../precompiled.js';
import type { Database } from '../schema.js';

/**
 * A known customer's open conversation as remembered: the visitor's profile and tags as stored,
 * and the conversation as it was learnt. Its bookkeeping (`updatedAt`, the last message) is not
 * kept current: a message changes only those, and nothing reads them from here.
 */
export interface KnownArrival {
  readonly profile: VisitorProfile;
  readonly tags: string[];
  readonly conversation: Conversation;
}

/** What one transaction learnt, by key; kept by `keep` after its commit. */
export type LearntArrivals = Map<string, KnownArrival>;

/** One row of `conversation_changes`: the customer (by key) a change concerned. */
export interface ConversationChange {
  readonly seq: number;
  readonly key: string;
}

/** How many changes the log keeps behind the last one read before the older ones are deleted. */
const LOG_KEPT = 1000;
/** How many changed customers are remembered to judge what a transaction learnt before them. */
const RECENT_CHANGES = 10_000;

export class OpenConversations {
  private readonly entries = new Map<string, KnownArrival>();
  /** The last change read; undefined until the first transaction. */
  private seen: number | undefined;
  /** The latest change per customer among the recent ones; `recentFloor` and older are not known. */
  private readonly recent = new Map<string, number>();
  private recentFloor = 0;
  private prunedTo = 0;
  private readonly lastQuery = precompiled((db) => db.selectFrom('conversation_changes').select((eb) => eb.fn.max('seq').as('seq')));
  private readonly changesQuery = precompiled((db) => db.selectFrom('conversation_changes').select(['seq', 'channel_id', 'customer_id']).where('seq', '>', 0).orderBy('seq'));
  private readonly pruneQuery = precompiled((db) => db.deleteFrom('conversation_changes').where('seq', '<=', 0));

  constructor(private readonly maxEntries = 50_000) {}

  static key(channelId: number, customerId: string): string {
    return `${channelId}\u0000${customerId}`;
  }

  /** Reads the changes past the last one seen inside a write transaction and forgets them; answers the last. */
  async syncIn(trx: Kysely<Database>): Promise<number> {
    if (this.seen === undefined) {
      const [row] = await this.lastQuery(trx, []);
      this.start(Number(row?.seq ?? 0));
      return this.seen!;
    }
    const rows = await this.changesQuery(trx, [this.seen]);
    if (rows.length === 0) return this.seen;
    this.forget(rows.map((r) => ({ seq: Number(r.seq), key: OpenConversations.key(Number(r.channel_id), r.customer_id) })));
    // The log is read by this process alone; it keeps a margin for a writer that read it a moment ago.
    if (this.seen - this.prunedTo >= 2 * LOG_KEPT) {
      this.prunedTo = this.seen - LOG_KEPT;
      await this.pruneQuery(trx, [this.prunedTo]);
    }
    return this.seen;
  }

  /** The first transaction: nothing is remembered yet; changes up to `seq` are past. */
  start(seq: number): void {
    this.entries.clear();
    this.recent.clear();
    this.seen = seq;
    this.recentFloor = seq;
  }

  /** Forgets the customers of `changes` (read in order, each past the last seen). */
  forget(changes: readonly ConversationChange[]): void {
    for (const { seq, key } of changes) {
      this.entries.delete(key);
      this.recent.delete(key);
      this.recent.set(key, seq);
      this.seen = seq;
    }
    for (const [key, seq] of this.recent) {
      if (this.recent.size <= RECENT_CHANGES) break;
      this.recent.delete(key);
      this.recentFloor = seq;
    }
  }

  get(key: string): KnownArrival | undefined {
    return this.entries.get(key);
  }

  /**
   * Keeps what a committed transaction that read the changes up to `seq` learnt: not a customer
   * changed after that (another transaction read it meanwhile), nor anything when what changed
   * after it is no longer known (the oldest go past the cap).
   */
  keep(learnt: LearntArrivals, seq: number): void {
    if (this.seen === undefined || seq < this.recentFloor) return;
    for (const [key, arrival] of learnt) {
      if (seq !== this.seen && (this.recent.get(key) ?? 0) > seq) continue;
      this.entries.delete(key);
      this.entries.set(key, arrival);
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The memory as one write transaction sees it. */
  inTransaction(trx: Kysely<Database>): OpenConversationsInTransaction {
    return new OpenConversationsInTransaction(this, trx);
  }
}

/** One transaction's view: the last change it read, and what it learnt (kept by `committed`). */
export class OpenConversationsInTransaction {
  private seq: number | undefined;
  private readonly learnt: LearntArrivals = new Map();
  /** The key of the customer last looked up: a message remembers the customer it looked up. */
  private lastChannelId = -1;
  private lastCustomerId = '';
  private lastKey = '';

  constructor(
    private readonly memory: OpenConversations,
    private readonly trx: Kysely<Database>,
  ) {}

  /** The customer's open conversation, valid in this transaction (or undefined). */
  async get(channelId: number, customerId: string): Promise<KnownArrival | undefined> {
    if (this.seq === undefined) this.seq = await this.memory.syncIn(this.trx);
    const key = this.keyOf(channelId, customerId);
    return this.learnt.get(key) ?? this.memory.get(key);
  }

  /**
   * Learns the customer's open conversation. A known customer's message learns the entry it
   * found again (it stays the most recently used): a new entry per message would live until the
   * customer's next message, long enough for the young generation's scavenges to copy and
   * promote it.
   */
  learn(channelId: number, customerId: string, arrival: KnownArrival): void {
    if (this.seq !== undefined) this.learnt.set(this.keyOf(channelId, customerId), arrival);
  }

  /** After the transaction committed: what it learnt is kept. */
  committed(): void {
    if (this.seq !== undefined) this.memory.keep(this.learnt, this.seq);
  }

  private keyOf(channelId: number, customerId: string): string {
    if (channelId !== this.lastChannelId || customerId !== this.lastCustomerId) {
      this.lastChannelId = channelId;
      this.lastCustomerId = customerId;
      this.lastKey = OpenConversations.key(channelId, customerId);
    }
    return this.lastKey;
  }
}
