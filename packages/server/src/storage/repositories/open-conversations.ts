/**
 * Known customers' open conversations, kept in memory for the send-message path on a
 * single-writer engine (SQLite: this process owns the file). With them a message from a known
 * customer is one insert and one small update, instead of a read of the visitor, the open
 * conversation and the msg_id first.
 *
 * What is kept is only valid at the epoch it was learnt at (migration 040: triggers move the
 * epoch whenever anything changes a conversation or a visitor, except the per-message
 * bookkeeping). Each write transaction reads the epoch once and calls `sync`, which drops
 * everything when it moved. What a transaction learns is kept only once it has committed, and
 * only if the epoch did not move in between.
 */
import type { Selectable } from 'kysely';
import type { VisitorProfile } from '../../modules/channel/ports.js';
import type { ConversationsTable } from '../tables/channel.js';

export interface OpenArrival {
  /** The visitor's profile and tags as stored. */
  profile: VisitorProfile;
  tags: string[];
  /**
   * The conversation's row as it was learnt. Its bookkeeping columns (`last_message_id`,
   * `updated_at`) are not kept current: every message changes them, the epoch ignores them, and
   * the send-message path reads neither from here.
   */
  conversation: Selectable<ConversationsTable>;
}

/** What one transaction learnt, by key; kept by `keep` after its commit. */
export type LearntArrivals = Map<string, OpenArrival>;

export class OpenConversations {
  private readonly entries = new Map<string, OpenArrival>();
  private epoch: number | undefined;

  constructor(private readonly maxEntries = 50_000) {}

  static key(channelId: number, customerId: string): string {
    return `${channelId}\u0000${customerId}`;
  }

  /** Called with the epoch read inside a write transaction, before any `get` in it. */
  sync(epoch: number): void {
    if (epoch === this.epoch) return;
    this.entries.clear();
    this.epoch = epoch;
  }

  get(key: string): OpenArrival | undefined {
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
}
