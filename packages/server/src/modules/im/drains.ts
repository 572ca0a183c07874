/**
 * Drains: a user's stored (offline) messages handed to each of their sockets, oldest first (by
 * msg_id), as fast as that socket's client takes them, on connect, after a fan-out stored a message
 * for a user who came online meanwhile, after a socket of theirs gave messages back, and when
 * another instance asks.
 *
 * Each socket has its own feed: it reads no more than the socket has room for (`ImConnection.room`),
 * so a backlog of any size waits in the store, never in memory, and no count of stored messages can
 * overflow a socket. Reading changes nothing: a stored message stays `undelivered` until a client
 * acknowledges it (`markDelivered`), so a socket that closes first leaves it for the next one, and a
 * crash loses nothing. A feed remembers what it handed out and was not acknowledged yet (`inHand`),
 * and does not hand it out again.
 *
 * ```
 * feed:  reading ──rows──▶ handed (in hand) ──client acknowledged──▶ delivered (marked in the store)
 *           ▲   │ no room: wait                 │ socket closed: stays undelivered, for the next socket
 *           └───┘                               ▼
 * ```
 */
import type { Clock } from '../../kernel/clock.js';
import { DEVICE_TTL_MS } from './devices.js';
import type { ImMetrics } from './metrics.js';
import type { ImMessagesRepository } from './ports.js';
import type { ImConnection, Presence } from './presence.js';

type Store = Pick<ImMessagesRepository, 'readOffline' | 'markDelivered'>;

/** What a socket route holds of its socket's feed. */
export interface Feed {
  /** Resolves once the first stored messages were handed over, or there were none (msync's first UNREAD answer waits for it). */
  readonly started: Promise<void>;
  /** Resolves once the socket was handed every stored message there was at connect; it then counts as online. */
  readonly ready: Promise<void>;
  /** The socket closed: no more reads. What its client did not acknowledge stays stored. */
  close(): void;
}

interface FeedContext {
  store: Store;
  clock: Clock;
  metrics: Pick<ImMetrics, 'offlineDelivered'>;
  onError: (error: unknown) => void;
}

/** One socket's drain: its cursor, what it holds unacknowledged, and at most one read waiting. */
class SocketFeed {
  open = true;
  /** The msg_id of the last row read; reads go on above it unless a rescan was asked. */
  private cursor = '0';
  private rescanNext = false;
  /** Handed to the socket and not acknowledged yet: never handed to it twice. */
  private readonly inHand = new Set<string>();
  /**
   * Acknowledged and marked delivered, with the count of marks done when this one was. A read that
   * began before its mark committed may still find the row undelivered (another connection of the
   * pool, on PostgreSQL): it is skipped until a read begun after the mark has ended.
   */
  private readonly marked = new Map<string, number>();
  private marks = 0;
  private last: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;
  private onHanded: (() => void) | undefined;

  constructor(
    readonly appId: string,
    readonly username: string,
    readonly connection: ImConnection,
    private readonly ctx: FeedContext,
  ) {}

  /**
   * Runs a drain after the one under way; a drain not started yet already covers what a later
   * request would, so requests never pile up. `rescan` reads from the oldest row again (a row may
   * have been stored below the cursor: a fan-out that raced the connect, messages given back).
   */
  request(rescan: boolean): Promise<void> {
    if (rescan) this.rescanNext = true;
    if (this.waiting) return this.waiting;
    const next: Promise<void> = (this.last ?? Promise.resolve())
      .then(() => {
        if (this.waiting === next) this.waiting = undefined;
        return this.run();
      })
      .catch(this.ctx.onError);
    this.waiting = next;
    this.last = next;
    return next;
  }

  /** Resolves at the first hand-over, or when `drained` (the first drain) ends without one. */
  firstHandOver(drained: Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      this.onHanded = resolve;
      void drained.then(resolve);
    });
  }

  private async run(): Promise<void> {
    if (this.rescanNext) {
      this.rescanNext = false;
      this.cursor = '0';
    }
    for (;;) {
      const room = this.open ? await this.connection.room() : 0;
      if (room <= 0 || !this.open) return;
      const limit = room + this.heldAbove(this.cursor);
      const marksBefore = this.marks;
      const rows = await this.ctx.store.readOffline(this.appId, this.username, this.cursor, limit, this.connection.resource);
      if (!this.open) return;
      const fresh = [];
      for (const row of rows) {
        if (fresh.length === room) break;
        if (!this.inHand.has(row.msgId) && !this.marked.has(row.msgId)) fresh.push(row);
      }
      // This read began after these marks committed: it saw those rows delivered.
      for (const [id, mark] of this.marked) if (mark <= marksBefore) this.marked.delete(id);
      const last = fresh.at(-1) ?? rows.at(-1);
      if (last) this.cursor = last.msgId;
      if (fresh.length > 0) {
        for (const row of fresh) this.inHand.add(row.msgId);
        const refused = this.connection.sendStored(fresh, this.acknowledge);
        for (const id of refused) this.inHand.delete(id);
        // Refused: the socket is going away (a full outbox); the rows stay for the next one.
        if (refused.length > 0) return;
        this.onHanded?.();
      }
      if (rows.length < limit) return;
    }
  }

  /** Rows above `cursor` this feed holds or has just marked: a read skips them, so it reads that many more. */
  private heldAbove(cursor: string): number {
    let n = 0;
    for (const id of this.inHand) if (Number(id) > Number(cursor)) n++;
    for (const id of this.marked.keys()) if (Number(id) > Number(cursor)) n++;
    return n;
  }

  /** The client took these: marked delivered in the store, then no longer held (`marked` covers reads under way). */
  private readonly acknowledge = (msgIds: string[]): void => {
    const mine = msgIds.filter((id) => this.inHand.has(id));
    if (mine.length === 0) return;
    const now = this.ctx.clock.now();
    const resource = this.connection.resource;
    // A device's acknowledgement takes the user's own copies for that device only (devices.ts).
    void this.ctx.store
      .markDelivered(this.appId, this.username, mine, now, resource === undefined ? undefined : { resource, seenSince: now - DEVICE_TTL_MS })
      .then((marked) => {
        if (marked > 0) this.ctx.metrics.offlineDelivered(marked);
      }, this.ctx.onError)
      .finally(() => {
        const mark = ++this.marks;
        for (const id of mine) {
          this.inHand.delete(id);
          this.marked.set(id, mark);
        }
      });
  };
}

export class Drains {
  /** Per user (`appId NUL username`): the feeds of their sockets in this process. */
  private readonly feeds = new Map<string, Set<SocketFeed>>();
  private readonly ctx: FeedContext;

  constructor(
    store: Store,
    private readonly presence: Presence,
    clock: Clock,
    metrics: Pick<ImMetrics, 'offlineDelivered'>,
    onError: (error: unknown) => void = () => undefined,
  ) {
    this.ctx = { store, clock, metrics, onError };
  }

  /**
   * A new socket of the user, added to presence: its stored messages first, then it counts as
   * online (unless `lease` ended meanwhile), then a drain again for anything stored in between.
   */
  connect(appId: string, username: string, connection: ImConnection, lease: { readonly active: boolean }): Feed {
    const key = `${appId}\u0000${username}`;
    const feed = new SocketFeed(appId, username, connection, this.ctx);
    let feeds = this.feeds.get(key);
    if (!feeds) this.feeds.set(key, (feeds = new Set()));
    feeds.add(feed);
    const drained = feed.request(false);
    const started = feed.firstHandOver(drained);
    const ready = drained.then(() => {
      if (lease.active && feed.open) this.presence.markReady(appId, username, connection);
    });
    void ready.then(() => feed.request(true));
    return {
      started,
      ready,
      close: () => {
        feed.open = false;
        const set = this.feeds.get(key);
        set?.delete(feed);
        if (set?.size === 0) this.feeds.delete(key);
      },
    };
  }

  /** Drains the user's sockets in this process again, from their oldest stored message. */
  drain(appId: string, username: string): Promise<void> {
    const feeds = this.feeds.get(`${appId}\u0000${username}`);
    if (!feeds) return Promise.resolve();
    return Promise.all([...feeds].map((feed) => feed.request(true))).then(() => undefined);
  }
}
