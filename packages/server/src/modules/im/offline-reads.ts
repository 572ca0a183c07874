/**
 * What is stored for a user while offline, as the offline count and status endpoints read it.
 * Offline rows are written by the fan-out after the send answered, so each read first runs the
 * user's pending fan-out: once a send answers 200, these reads show its message.
 */
import type { Fanout } from './fanout.js';
import type { ImApp, ImMessagesRepository } from './ports.js';

export class OfflineReads {
  constructor(
    private readonly repo: Pick<ImMessagesRepository, 'countOffline' | 'offlineStatus'>,
    private readonly fanout: Pick<Fanout, 'settleFor'>,
  ) {}

  async count(app: ImApp, username: string): Promise<number> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.countOffline(app.id, username);
  }

  async status(app: ImApp, username: string, msgId: string): Promise<'delivered' | 'undelivered' | undefined> {
    await this.fanout.settleFor(app.id, username);
    return this.repo.offlineStatus(app.id, username, msgId);
  }
}
