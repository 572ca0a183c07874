/**
 * What one msync connection still has to hand its client, per conversation queue (the sender of
 * a one-to-one message, or the group or room), and the pull cursor of each queue. Pure: the
 * gateway turns the answers into frames.
 *
 * A client learns of a queue from a NOTICE or an UNREAD answer and then pulls it
 * (CommSyncUL{queue}); each answer carries up to a batch of metas and a fresh `nextKey`, or
 * `isLast` once nothing is left. The client pulls again with `key = nextKey` until `isLast`.
 * The SDK drops a NOTICE for a queue it is pulling, so a message that arrives during a pull is
 * only queued: it leaves on the next answer of that pull. A queue not being pulled gets a NOTICE.
 *
 * A batch handed out is acknowledged by the next pull of its queue carrying its `nextKey`; a pull
 * with no key or another key means the client did not take it, and the batch is handed out again.
 * The SDK may have two pulls of one queue under way (it pulls the head of its queue list again when
 * another queue's pull ends): a pull carrying the key of a batch that was handed out again since
 * acknowledges that batch's metas and ends (isLast), and the other pull goes on with the latest key.
 * Without it each pull's key was always one batch behind and the two pulls handed the same batch
 * back and forth forever, and the SDK, which pulls one queue at a time, never pulled the others.
 * The outbox is bounded by count and by bytes (metas handed out and not acknowledged included);
 * beyond either, `add` reports an overflow and the connection is a slow consumer.
 */
import type { Jid, MetaOut, SyncDown } from './codec.js';

/**
 * Where a held meta came from, which decides what becomes of it: `stored` ones are marked delivered
 * when acknowledged and simply stay stored when the connection closes first; `live` ones are
 * given back to the store on close; `room` ones (chat rooms, never stored) are dropped; `event` ones
 * (receipts, recalls, edits, contact events, group notices: bodies without contents) are handed out
 * once, never again, because the SDK cannot take such a meta a second time; `kept` ones (such events
 * kept while the user was offline, pending-events.ts) are handed out once too, forgotten by the store
 * when acknowledged and simply stay kept, for the next connection, when not. The SDK may pull a queue
 * again without a key (a NOTICE and an UNREAD answer naming it) before it pulls with the key of the
 * batch it has taken: kept ones of that batch are set aside under its key, and acknowledged by a later
 * pull carrying it.
 */
export type Origin = 'stored' | 'live' | 'room' | 'event' | 'kept';

export interface Held {
  meta: MetaOut;
  origin: Origin;
  bytes: number;
  /** A kept event's id in the store (`kept` only). */
  ref?: string;
}

interface Queue {
  jid: Jid;
  pending: Held[];
  /** Ids in `pending`, so a message delivered twice (live push and fan-out) is held once. */
  ids: Set<string>;
  /** The last batch handed out, and the key the client's next pull must carry to acknowledge it. */
  unacked: Held[];
  ackKey: string | undefined;
  /** Earlier batches handed out again in `unacked` (a pull without their key came first): their keys and ids, the latest last. */
  earlier: Array<{ key: string; ids: Set<string> }>;
  /** Told (NOTICE or UNREAD) and not finished with `isLast` yet. */
  pulling: boolean;
}

/** Metas of one pull answer at most. */
export const PULL_BATCH = 50;
/** Stored messages one connection holds at most (not acknowledged yet): a drain reads no more. */
export const STORED_WINDOW = 4 * PULL_BATCH;
/** Keys of batches handed out again that a crossing pull may still acknowledge, per queue. */
const EARLIER_KEYS = 4;
/** What a meta costs beside its payload, roughly (ids, JIDs, timestamp). */
const META_OVERHEAD = 96;

export type AddOutcome = 'notice' | 'queued' | 'overflow';

export interface OutboxLimits {
  /** Metas held at most. */
  count: number;
  /** Bytes of metas held at most. */
  bytes: number;
}

export interface PullOutcome {
  down: SyncDown;
  /** The batch this pull acknowledged. */
  acked: Held[];
}

const keyOf = (jid: Jid | undefined): string => `${jid?.domain ?? ''}/${jid?.name ?? ''}`;

export class Outbox {
  private readonly queues = new Map<string, Queue>();
  private held = 0;
  private heldBytes = 0;
  private stored = 0;
  private cursor = 0;
  /** Kept events of batches a pull without their key passed over, by that key: a later pull carrying it acknowledges them. */
  private readonly setAside = new Map<string, Held[]>();

  constructor(private readonly limits: OutboxLimits) {}

  /** Metas held: not handed out yet, or handed out and not acknowledged. */
  get size(): number {
    return this.held;
  }

  /** Bytes of the metas held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * How many stored messages a drain may add now: up to STORED_WINDOW held, within the count bound,
   * and none while half the byte bound is taken.
   */
  roomForStored(): number {
    if (this.heldBytes > this.limits.bytes / 2) return 0;
    return Math.max(0, Math.min(STORED_WINDOW - this.stored, this.limits.count - this.held));
  }

  /**
   * Queues a meta. `notify` false holds it silently (the offline sync lists it in the first
   * UNREAD answer); otherwise a queue that is not being pulled asks for a NOTICE.
   */
  add(queue: Jid, meta: MetaOut, notify: boolean, origin: Origin = 'live', ref?: string): AddOutcome {
    const bytes = (meta.payload?.byteLength ?? 0) + META_OVERHEAD;
    const key = keyOf(queue);
    let entry = this.queues.get(key);
    const twin = entry && (entry.ids.has(meta.id) ? entry.pending : entry.unacked).find((h) => h.meta.id === meta.id);
    if (twin) {
      // Held already (pushed live, then read from the store): one copy, acknowledged as stored.
      if (origin === 'stored' && twin.origin !== 'stored') {
        twin.origin = 'stored';
        this.stored++;
      }
      return 'queued';
    }
    if (this.held >= this.limits.count || this.heldBytes + bytes > this.limits.bytes) return 'overflow';
    if (!entry) {
      entry = { jid: queue, pending: [], ids: new Set(), unacked: [], ackKey: undefined, earlier: [], pulling: false };
      this.queues.set(key, entry);
    }
    entry.ids.add(meta.id);
    entry.pending.push({ meta, origin, bytes, ...(ref === undefined ? {} : { ref }) });
    this.count(origin, bytes, 1);
    if (!notify || entry.pulling) return 'queued';
    entry.pulling = true;
    return 'notice';
  }

  /** The answer to a pull of `queue`; `key` acknowledges the batch handed out with it. */
  pull(queue: Jid | undefined, key?: string): PullOutcome {
    const entry = this.queues.get(keyOf(queue));
    const jid = entry?.jid ?? queue ?? {};
    let acked: Held[] = [];
    const late = key === undefined ? undefined : this.setAside.get(key);
    if (late && key !== undefined) {
      acked = late;
      this.setAside.delete(key);
    }
    const ended = (): PullOutcome => ({ down: { queue: jid, isLast: true, nextKey: String(++this.cursor) }, acked });
    const earlier = key === undefined ? undefined : entry?.earlier.find((e) => e.key === key);
    if (entry && earlier && entry.unacked.length > 0) {
      acked = [...acked, ...this.acknowledgeCrossed(entry, earlier)];
      if (entry.unacked.length > 0) return ended();
    }
    if (entry && entry.unacked.length > 0) {
      if (key !== undefined && key === entry.ackKey) {
        acked = [...acked, ...entry.unacked];
        for (const h of entry.unacked) this.count(h.origin, h.bytes, -1);
        entry.earlier = [];
      } else {
        // Not acknowledged: the client did not take it, so it is handed out again first (events excepted).
        const once = (h: Held) => h.origin === 'event' || h.origin === 'kept';
        const again = entry.unacked.filter((h) => !once(h));
        if (entry.ackKey !== undefined && again.length > 0) {
          entry.earlier.push({ key: entry.ackKey, ids: new Set(again.map((h) => h.meta.id)) });
          if (entry.earlier.length > EARLIER_KEYS) entry.earlier.shift();
        }
        for (const h of entry.unacked) if (once(h)) this.count(h.origin, h.bytes, -1);
        const kept = entry.unacked.filter((h) => h.origin === 'kept');
        if (kept.length > 0 && entry.ackKey !== undefined) this.setAside.set(entry.ackKey, kept);
        for (const h of again) entry.ids.add(h.meta.id);
        entry.pending.unshift(...again);
      }
      entry.unacked = [];
      entry.ackKey = undefined;
    }
    if (!entry || entry.pending.length === 0) {
      if (entry) this.queues.delete(keyOf(queue));
      return ended();
    }
    // Metas never travel with isLast: the SDK fires its offline-sync finish on isLast before it
    // has handed the metas of the same frame to the app. The client's cursor pull ends the pull.
    const batch = entry.pending.splice(0, PULL_BATCH);
    for (const h of batch) entry.ids.delete(h.meta.id);
    const nextKey = String(++this.cursor);
    entry.unacked = batch;
    entry.ackKey = nextKey;
    entry.pulling = true;
    return { down: { queue: jid, metas: batch.map((h) => h.meta), nextKey, isLast: false }, acked };
  }

  /**
   * Two pulls of a queue crossed (the SDK pulls a queue again when another queue's pull ends while
   * this one's is under way): a pull carries the key of `earlier`, a batch handed out again since in
   * the batch the other pull took. Its metas are acknowledged (returned); the rest stays handed out
   * under the latest key, which the other pull carries next, and the caller ends this pull.
   */
  private acknowledgeCrossed(entry: Queue, earlier: { key: string; ids: Set<string> }): Held[] {
    entry.earlier = entry.earlier.filter((e) => e !== earlier);
    const took = entry.unacked.filter((h) => earlier.ids.has(h.meta.id));
    entry.unacked = entry.unacked.filter((h) => !earlier.ids.has(h.meta.id));
    for (const h of took) this.count(h.origin, h.bytes, -1);
    if (entry.unacked.length === 0) {
      entry.ackKey = undefined;
      entry.earlier = [];
    }
    return took;
  }

  /** The queues holding metas not handed out and how many (the UNREAD answer); the client pulls each. */
  unread(): Array<{ queue: Jid; n: number }> {
    const out: Array<{ queue: Jid; n: number }> = [];
    for (const entry of this.queues.values()) {
      if (entry.pending.length === 0) continue;
      entry.pulling = true;
      out.push({ queue: entry.jid, n: entry.pending.length });
    }
    return out;
  }

  /**
   * Empties the outbox (the connection closed) and returns the ids of the live messages its client
   * did not acknowledge (handed out in the last batch of a queue, or not handed out yet), to be
   * stored for the user again. Stored ones are still stored; chat-room ones are dropped.
   */
  takeUnacknowledged(): string[] {
    const ids = [...this.queues.values()]
      .flatMap((q) => [...q.unacked, ...q.pending])
      .filter((h) => h.origin === 'live')
      .map((h) => h.meta.id);
    this.queues.clear();
    this.setAside.clear();
    this.held = 0;
    this.heldBytes = 0;
    this.stored = 0;
    return ids;
  }

  private count(origin: Origin, bytes: number, sign: 1 | -1): void {
    this.held += sign;
    this.heldBytes += sign * bytes;
    if (origin === 'stored') this.stored += sign;
  }
}
