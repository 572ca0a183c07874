/**
 * Receipts, recalls and edits for users no socket of whom a live push reached: kept (one JSON frame a
 * row, `im_pending_events`) and handed to the user's next socket once it is ready (after its
 * stored messages), oldest first, then forgotten. Deleting a user deletes theirs.
 *
 *   push ──reached──▶ done
 *     └── not reached ──▶ kept (at most PENDING_EVENTS_MAX a user; beyond, dropped)
 *                           ──socket ready──▶ sent to that socket ──▶ forgotten
 */
import type { ImEditFrame, ImReceiptFrame, ImRecallFrame } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { ImMessagesRepository, ImTransaction } from './ports.js';
import type { ImConnection, Presence } from './presence.js';

/** Kept events handed over per read. */
const BATCH = 200;
/** Kept events per user at most: beyond, new ones are dropped (a user cannot fill another's store). */
export const PENDING_EVENTS_MAX = 1000;

export type PendingFrame = ImReceiptFrame | ImRecallFrame | ImEditFrame;

export class PendingEvents {
  constructor(
    private readonly repo: Pick<ImMessagesRepository, 'readEvents' | 'countEvents'>,
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly presence: Pick<Presence, 'deliver'>,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * Pushes a frame to users live; keeps it for those no socket of whom was reached (and `keep`
   * allows). Never rejects.
   */
  async deliver(appId: string, usernames: readonly string[], frame: PendingFrame, keep: (username: string) => boolean = () => true): Promise<void> {
    try {
      const reached = await this.presence.deliver(appId, usernames, frame);
      const missed: string[] = [];
      for (const u of usernames) {
        if (!reached.has(u) && keep(u) && (await this.repo.countEvents(appId, u)) < PENDING_EVENTS_MAX) missed.push(u);
      }
      if (missed.length === 0) return;
      const text = JSON.stringify(frame);
      await this.uow.run((tx) => tx.im.storeEvents(missed.map((username) => ({ appId, username, id: frame.id, frame: text })), this.clock.now()));
    } catch (error) {
      this.onError(error);
    }
  }

  /** Hands a ready socket its user's kept events, then forgets them. Never rejects. */
  async handOver(appId: string, username: string, connection: Pick<ImConnection, 'send'>): Promise<void> {
    try {
      for (;;) {
        const events = await this.repo.readEvents(appId, username, BATCH);
        for (const event of events) connection.send(JSON.parse(event.frame) as PendingFrame);
        if (events.length > 0) {
          await this.uow.run((tx) =>
            tx.im.deleteEvents(
              appId,
              username,
              events.map((e) => e.id),
            ),
          );
        }
        if (events.length < BATCH) return;
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
