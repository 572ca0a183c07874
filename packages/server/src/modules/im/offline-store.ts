/**
 * A user's offline store outside the fan-out and the drains: the offline count and status as the
 * REST endpoints read them; live messages a socket took but its client never acknowledged, stored
 * again and offered to the user's other sockets; and messages a push could not reach a receiver
 * with, stored for them.
 * Offline rows are written by the fan-out after the send answered, so each read first runs the
 * user's pending fan-out: once a send answers 200, these reads show its message.
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Drains } from './drains.js';
import type { Fanout } from './fanout.js';
import type { ImApp, ImMessagesRepository, ImTransaction, MessageRef } from './ports.js';
import type { Presence } from './presence.js';

export class OfflineStore {
  constructor(
    private readonly repo: Pick<ImMessagesRepository, 'countOffline' | 'offlineStatus' | 'returnOffline'>,
    private readonly fanout: Pick<Fanout, 'settleFor'>,
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly clock: Clock,
    private readonly drains: Pick<Drains, 'drain'>,
    private readonly presence: Pick<Presence, 'requestDrain'>,
  ) {}

  /**
   * Live messages a closed socket took and its client never acknowledged: stored for the user
   * again, and drained to the user's other open sockets here and on other instances (a socket
   * that got them live too may get a second copy with the same msg_id; none goes without).
   */
  async giveBack(appId: string, username: string, msgIds: readonly string[]): Promise<void> {
    if (msgIds.length === 0) return;
    await this.repo.returnOffline(appId, username, msgIds, this.clock.now());
    void this.drains.drain(appId, username);
    this.presence.requestDrain(appId, username);
  }

  /** Messages pushed to receivers who turned out to have no socket: stored for them, and drained to any socket they open. */
  readonly keep = async (missed: ReadonlyArray<MessageRef & { usernames: string[] }>): Promise<void> => {
    const rows = missed.flatMap((m) => m.usernames.map((username) => ({ appId: m.appId, msgId: m.msgId, username })));
    if (rows.length === 0) return;
    const now = this.clock.now();
    await this.uow.run((tx) => tx.im.storeOffline(rows, now));
    for (const { appId, username } of rows) {
      void this.drains.drain(appId, username);
      this.presence.requestDrain(appId, username);
    }
  };

  async count(app: ImApp, username: string): Promise<number> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.countOffline(app.id, username);
  }

  async status(app: ImApp, username: string, msgId: string): Promise<'delivered' | 'undelivered' | undefined> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.offlineStatus(app.id, username, msgId);
  }
}
