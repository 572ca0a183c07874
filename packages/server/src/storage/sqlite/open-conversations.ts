/**
 * Known customers' open conversations, kept in memory for the send-message path on a
 * single-writer engine (SQLite: this process owns the file). With them a message from a known
 * customer is one insert and one small update, instead of a read of the visitor, the open
 * conversation and the msg_id first (the arrival steps answer from here: channel-arrivals.ts).
 *
 * What is kept is only valid at the epoch it was learnt at (migration 040: triggers move the
 * epoch whenever anything changes a conversation or a visitor, except the per-message
 * bookkeeping). Each write transaction reads the epoch once and calls `sync`, which drops
 * everything when it moved. What a transaction learns is kept only once it has committed, and
 * only if the epoch did not move in between.
 */
import { sql, type Kysely } from 'kysely';
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

export class OpenConversations {
  private readonly entries = new Map<string, KnownArrival>();
  private epoch: number | undefined;
  private readonly epochQuery = precompiled((db) => db.selectFrom('conversation_epoch').select('n').where('id', '=', sql.lit(1)));

  constructor(private readonly maxEntries = 50_000) {}

  static key(channelId: number, customerId: string): string {
    return `${channelId}\u0000${customerId}`;
  }

  /** Reads the epoch inside a write transaction and syncs to it; answers it. */
  async syncIn(trx: Kysely<Database>): Promise<number> {
    const [row] = await this.epochQuery(trx, []);
    const epoch = Number(row?.n);
    this.sync(epoch);
    return epoch;
  }

  /** Called with the epoch read inside a write transaction, before any `get` in it. */
  sync(epoch: number): void {
    if (epoch === this.epoch) return;
    this.entries.clear();
    this.epoch = epoch;
  }

  get(key: string): KnownArrival | undefined {
    return this.entries.get(key);
  }

  /** Keeps what a committed transaction that read `epoch` learnt (the oldest go past the cap). */
  keep(learnt: LearntArrivals, epoch: number): void {
    if (epoch !== this.epoch) return;
    for (const [key, arrival] of learnt) {
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

/** One transaction's view: the epoch it read, and what it learnt (kept by `committed`). */
export class OpenConversationsInTransaction {
  private epoch: number | undefined;
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
    if (this.epoch === undefined) this.epoch = await this.memory.syncIn(this.trx);
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
    if (this.epoch !== undefined) this.learnt.set(this.keyOf(channelId, customerId), arrival);
  }

  /** After the transaction committed: what it learnt is kept. */
  committed(): void {
    if (this.epoch !== undefined) this.memory.keep(this.learnt, this.epoch);
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
