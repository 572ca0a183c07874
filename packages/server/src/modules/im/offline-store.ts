/**
 * A user's offline store outside the fan-out and the drains: the offline count and status as the
 * REST endpoints read them, and messages a socket took but could not hand over, stored again.
 * Offline rows are written by the fan-out after the send answered, so each read first runs the
 * user's pending fan-out: once a send answers 200, these reads show its message.
 */
import type { Clock } from '../../kernel/clock.js';
import type { Fanout } from './fanout.js';
import type { ImApp, ImMessagesRepository } from './ports.js';

export class OfflineStore {
  constructor(
    private readonly repo: Pick<ImMessagesRepository, 'countOffline' | 'offlineStatus' | 'returnOffline'>,
    private readonly fanout: Pick<Fanout, 'settleFor'>,
    private readonly clock: Clock,
  ) {}

  /** Messages a socket took and could not hand to its client: stored for the user again. */
  returnOffline(appId: string, username: string, msgIds: readonly string[]): Promise<void> {
    return msgIds.length === 0 ? Promise.resolve() : this.repo.returnOffline(appId, username, msgIds, this.clock.now());
  }

  async count(app: ImApp, username: string): Promise<number> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.countOffline(app.id, username);
  }

  async status(app: ImApp, username: string, msgId: string): Promise<'delivered' | 'undelivered' | undefined> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.offlineStatus(app.id, username, msgId);
  }
}
