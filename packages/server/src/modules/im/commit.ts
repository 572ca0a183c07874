/**
 * Group commit of accepted messages, on the unit of work's group commit (kernel/unit-of-work.ts).
 *
 * Every accepted message must be written together with its fan-out job before the sender gets an
 * answer. Under load, many senders wait at once; instead of one transaction (and one job) each,
 * the messages waiting while a commit is in progress are written together by the next one: one
 * multi-row insert and ONE `im.fanout` job listing them all. With no concurrency a message is
 * committed at once, alone, so this adds no latency; under load it divides the write transactions
 * and job rows per message by the batch size.
 *
 * The job is owned by this instance (`enqueueOwned`): it runs here once the batch committed, and
 * no other instance runs it while this one lives, since only this one knows whether its live
 * pushes happened (live-deliveries.ts). A batch that meets a conflict (an id another instance
 * issued in the same ms) is written again alone with fresh ids, by the unit of work's rule.
 */
import type { GroupWriter, UnitOfWork } from '../../kernel/unit-of-work.js';
import type { OwnedJob } from '../jobs/ports.js';
import { DEVICE_TTL_MS } from './devices.js';
import type { IdGenerator } from './msg-id.js';
import type { ImTransaction, StoredMessage } from './ports.js';

export const FANOUT_QUEUE = 'im.fanout';

/** Payload of an `im.fanout` job: the messages one commit accepted. */
export interface FanoutPayload {
  messages: Array<{ appId: string; msgId: string }>;
}

/** Largest number of messages written by one commit. */
const MAX_BATCH = 500;

export class MessageCommitter {
  private readonly writer: GroupWriter<StoredMessage[], OwnedJob>;

  constructor(uow: UnitOfWork<ImTransaction>, ids: IdGenerator) {
    this.writer = uow.groupCommit<StoredMessage[], OwnedJob>(
      async (tx, batches, attempt) => {
        const all = batches.flat();
        // Written again after a conflict: the ids another instance took, taken afresh.
        if (attempt > 1) for (const m of all) m.msgId = ids.next();
        await tx.im.insertMessages(all);
        // Multi-device: the senders' own copies, for their devices offline (devices.ts).
        const own = all.find((m) => m.ownCopy !== undefined);
        if (own) await tx.im.storeOwnCopies(all, own.timestamp - DEVICE_TTL_MS);
        const job = await tx.jobs.enqueueOwned({ queue: FANOUT_QUEUE, payload: { messages: all.map((m) => ({ appId: m.appId, msgId: m.msgId })) } satisfies FanoutPayload });
        return batches.map(() => job);
      },
      { maxBatch: MAX_BATCH, weight: (messages) => messages.length, parallel: true },
    );
  }

  /** Resolves once `messages` and their fan-out job are committed; the job then runs here. */
  async commit(messages: StoredMessage[]): Promise<void> {
    const job = await this.writer.submit(messages);
    job.run();
  }
}
