/**
 * History retention (contract 6.8: messages are kept `PARLEY_IM_HISTORY_DAYS` for roaming): a
 * periodic sweep deletes each app's messages issued before the period, oldest first, a batch per
 * transaction so a large backlog never holds the database for long. A message goes with its
 * offline rows, group readers and pending fan-out. History and the conversation list stop
 * answering such messages at the same moment (history.ts, conversations.ts); the sweep frees
 * their storage. Records in the callbacks' exception store and chat files keep their own retention.
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { firstIdAt } from './msg-id.js';
import type { ImAppsRepository, ImTransaction } from './ports.js';

/** Messages deleted per transaction. */
export const HISTORY_SWEEP_BATCH = 1000;

export class HistoryRetention {
  constructor(
    private readonly apps: Pick<ImAppsRepository, 'listApps'>,
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly clock: Clock,
    private readonly retentionMs: number,
    private readonly batch = HISTORY_SWEEP_BATCH,
  ) {}

  /** Deletes every app's messages older than the period; answers how many. */
  async sweep(): Promise<number> {
    const before = firstIdAt(this.clock.now() - this.retentionMs);
    let total = 0;
    for (const app of await this.apps.listApps()) {
      for (;;) {
        const deleted = await this.uow.run((tx) => tx.im.deleteMessagesBefore(app.id, before, this.batch));
        total += deleted;
        if (deleted < this.batch) break;
      }
    }
    return total;
  }
}
