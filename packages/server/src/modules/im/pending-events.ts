/**
 * Events for users no socket of whom a live push reached: receipts, recalls and edits, contact
 * events (`roster`) and the group notices about the user (`group_event`, group-notices.ts
 * `keptOffline`). Kept (one JSON frame a row, `im_pending_events`) and handed to each of the user's
 * next sockets once it is ready (after its stored messages), oldest first. As stored messages, a
 * kept event is forgotten only once a client acknowledged it (`ImConnection.sendKept`'s callback:
 * msync, the pull carrying the batch's key; the JSON socket, the write confirmed): reading changes
 * nothing, so a socket that closes mid-hand-over leaves what its client did not take for the next
 * one, and an acknowledged event is never handed over again. Deleting a user deletes theirs.
 *
 * A user's own recall or edit is kept for their other devices the same way (devices.ts), with the
 * resource that made it, whose sockets never get it; each other device takes it once, and it is
 * forgotten when all have.
 *
 *   push ──reached──▶ done
 *     └── not reached ──▶ kept (at most PENDING_EVENTS_MAX a user; beyond, new ones dropped)
 *                           ├──socket ready──▶ handed to that socket ──client acknowledged──▶ forgotten
 *                           │                        │ socket closed first (or msync: pulled without
 *                           │                        ▼ the batch's key): still kept, for the next socket
 *                           └──PENDING_EVENTS_TTL_MS passed──▶ never sent; forgotten at the next
 *                              login, or when the user's store is full
 */
import type { ImEditFrame, ImGroupEventFrame, ImReceiptFrame, ImRecallFrame, ImRosterFrame } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { ImMessagesRepository, ImTransaction } from './ports.js';
import type { ImConnection, Presence } from './presence.js';

/** Kept events handed over per read. */
const BATCH = 200;
/** Kept events per user at most: beyond, new ones are dropped (a user cannot fill another's store). */
export const PENDING_EVENTS_MAX = 1000;
/** How long a kept event waits for its user's next login: 7 days, Easemob's offline retention. */
export const PENDING_EVENTS_TTL_MS = 7 * 24 * 3600 * 1000;

export type PendingFrame = ImReceiptFrame | ImRecallFrame | ImEditFrame | ImRosterFrame | ImGroupEventFrame;

export class PendingEvents {
  constructor(
    private readonly repo: Pick<ImMessagesRepository, 'readEvents' | 'countEvents'>,
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly presence: Pick<Presence, 'deliver'>,
    private readonly clock: Clock,
    /** The id of a kept frame that has none of its own (contact and group events): ordered as msg ids are. */
    private readonly nextId: () => string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * Pushes a frame to users live; keeps it for those no socket of whom was reached (and `keep`
   * allows). Never rejects.
   */
  async deliver(appId: string, usernames: readonly string[], frame: PendingFrame, keep: (username: string) => boolean = () => true): Promise<void> {
    try {
      const reached = await this.presence.deliver(appId, usernames, frame);
      await this.keep(
        appId,
        usernames.filter((u) => !reached.has(u) && keep(u)),
        frame,
      );
    } catch (error) {
      this.onError(error);
    }
  }

  /**
   * Keeps a frame for the users' next sockets, as room allows; `sentFrom` (a user's own recall or
   * edit, devices.ts): never handed to a socket of that resource.
   */
  async keep(appId: string, usernames: readonly string[], frame: PendingFrame, sentFrom?: string): Promise<void> {
    if (usernames.length === 0) return;
    const now = this.clock.now();
    const room = await Promise.all(usernames.map((u) => this.hasRoom(appId, u, now)));
    const kept = usernames.filter((_, i) => room[i]);
    if (kept.length === 0) return;
    const id = 'id' in frame ? frame.id : this.nextId();
    const text = JSON.stringify(frame);
    await this.uow.run((tx) => tx.im.storeEvents(kept.map((username) => ({ appId, username, id, frame: text, ...(sentFrom === undefined ? {} : { sentFrom }) })), now));
  }

  /** Whether the user's store takes one more; a full one is first rid of its expired events. */
  private async hasRoom(appId: string, username: string, now: number): Promise<boolean> {
    if ((await this.repo.countEvents(appId, username)) < PENDING_EVENTS_MAX) return true;
    await this.uow.run((tx) => tx.im.deleteEventsBefore(appId, username, now - PENDING_EVENTS_TTL_MS));
    return (await this.repo.countEvents(appId, username)) < PENDING_EVENTS_MAX;
  }

  /**
   * Hands a ready socket its user's kept events that have not expired (but their own changes made
   * on its device); each is forgotten once the socket's client acknowledged it. Never rejects.
   */
  async handOver(appId: string, username: string, connection: Pick<ImConnection, 'sendKept' | 'resource'>): Promise<void> {
    try {
      const since = this.clock.now() - PENDING_EVENTS_TTL_MS;
      await this.uow.run((tx) => tx.im.deleteEventsBefore(appId, username, since));
      const resource = connection.resource;
      // A device's acknowledgement takes the user's own recalls and edits for that device only (devices.ts).
      const device = resource === undefined ? undefined : { resource, seenSince: since };
      const acknowledge = (ids: string[]) => {
        if (ids.length === 0) return;
        this.uow.run((tx) => tx.im.deleteEvents(appId, username, ids, device)).catch(this.onError);
      };
      let after = '0';
      for (;;) {
        const events = await this.repo.readEvents(appId, username, since, after, BATCH, connection.resource);
        if (events.length > 0) {
          connection.sendKept(
            events.map((e) => ({ id: e.id, frame: JSON.parse(e.frame) as PendingFrame })),
            acknowledge,
          );
          after = events.at(-1)?.id ?? after;
        }
        if (events.length < BATCH) return;
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
