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
 */
import type { Jid, MetaOut, SyncDown } from './codec.js';

interface Held {
  meta: MetaOut;
  /** Stored again for the user when the connection closes before the client took it (not chat rooms). */
  storable: boolean;
}

interface Queue {
  jid: Jid;
  pending: Held[];
  /** Ids in `pending`, so a message delivered twice (live push and fan-out) is held once. */
  ids: Set<string>;
  /** The last batch handed out; the client's next pull of the queue acknowledges it. */
  unacked: Held[];
  /** Told (NOTICE or UNREAD) and not finished with `isLast` yet. */
  pulling: boolean;
}

/** Metas of one pull answer at most. */
export const PULL_BATCH = 50;

export type AddOutcome = 'notice' | 'queued' | 'overflow';

const keyOf = (jid: Jid | undefined): string => `${jid?.domain ?? ''}/${jid?.name ?? ''}`;

export class Outbox {
  private readonly queues = new Map<string, Queue>();
  private held = 0;
  private cursor = 0;

  /** @param limit metas held at most; beyond, the connection is a slow consumer. */
  constructor(private readonly limit: number) {}

  /** Metas not handed out yet. */
  get size(): number {
    return this.held;
  }

  /**
   * Queues a meta. `notify` false holds it silently (the offline sync lists it in the first
   * UNREAD answer); otherwise a queue that is not being pulled asks for a NOTICE.
   */
  add(queue: Jid, meta: MetaOut, notify: boolean, storable = true): AddOutcome {
    if (this.held >= this.limit) return 'overflow';
    const key = keyOf(queue);
    let entry = this.queues.get(key);
    if (!entry) {
      entry = { jid: queue, pending: [], ids: new Set(), unacked: [], pulling: false };
      this.queues.set(key, entry);
    }
    if (entry.ids.has(meta.id)) return 'queued';
    entry.ids.add(meta.id);
    entry.pending.push({ meta, storable });
    this.held++;
    if (!notify || entry.pulling) return 'queued';
    entry.pulling = true;
    return 'notice';
  }

  /** The answer to a pull of `queue` (with or without the previous `nextKey`). */
  pull(queue: Jid | undefined): SyncDown {
    const entry = this.queues.get(keyOf(queue));
    const jid = entry?.jid ?? queue ?? {};
    if (entry) entry.unacked = [];
    if (!entry || entry.pending.length === 0) {
      if (entry) this.queues.delete(keyOf(queue));
      return { queue: jid, isLast: true, nextKey: String(++this.cursor) };
    }
    // Metas never travel with isLast: the SDK fires its offline-sync finish on isLast before it
    // has handed the metas of the same frame to the app. The client's cursor pull ends the pull.
    const batch = entry.pending.splice(0, PULL_BATCH);
    for (const h of batch) entry.ids.delete(h.meta.id);
    this.held -= batch.length;
    entry.unacked = batch;
    entry.pulling = true;
    return { queue: jid, metas: batch.map((h) => h.meta), nextKey: String(++this.cursor), isLast: false };
  }

  /** The queues holding metas and how many (the UNREAD answer); the client pulls each. */
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
   * Empties the outbox and returns the ids of the storable messages the client has not
   * acknowledged (handed out in the last batch of a queue, or not handed out yet): the connection
   * closed, and they are stored for the user again.
   */
  takeUnacknowledged(): string[] {
    const ids = [...this.queues.values()].flatMap((q) => [...q.unacked, ...q.pending]).filter((h) => h.storable).map((h) => h.meta.id);
    this.queues.clear();
    this.held = 0;
    return ids;
  }
}
