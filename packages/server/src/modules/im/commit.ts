/**
 * Group commit of accepted messages.
 *
 * Every accepted message must be written together with its fan-out job before the sender gets an
 * answer. Under load, many senders wait at once; instead of one transaction (and one job) each,
 * the messages waiting while a commit is in progress are written together by the next one: one
 * multi-row insert and ONE `im.fanout` job listing them all. With no concurrency a message is
 * committed at once, alone, so this adds no latency; under load it divides the write transactions
 * and job rows per message by the batch size.
 *
 * SQLite has one writer, so one commit runs at a time; engines with several writers run a few.
 */
import type { Kysely } from 'kysely';
import { Batcher } from '../../kernel/batcher.js';
import { isUniqueViolation } from '../../storage/errors.js';
import type { Database } from '../../storage/schema.js';
import type { JobQueue } from '../jobs/ports.js';
import type { IdGenerator } from './msg-id.js';
import type { ImMessagesRepository, StoredMessage } from './ports.js';

export const FANOUT_QUEUE = 'im.fanout';

/** Payload of an `im.fanout` job: the messages one commit accepted. */
export interface FanoutPayload {
  messages: Array<{ appId: string; msgId: string }>;
}

/** Largest number of messages written by one commit. */
const MAX_BATCH = 500;
const MAX_ID_ATTEMPTS = 3;

/**
 * Live-delivery bookkeeping (live-deliveries.ts): `onCommitting` runs synchronously just before the
 * transaction that writes the messages commits (their ids are final then), `onAborted` when it
 * did not commit.
 */
export interface CommitHooks {
  onCommitting?: (messages: StoredMessage[]) => void;
  onAborted?: (messages: StoredMessage[]) => void;
}

export class MessageCommitter {
  private readonly batcher: Batcher<StoredMessage[]>;
  private readonly onCommitting: CommitHooks['onCommitting'];
  private readonly onAborted: CommitHooks['onAborted'];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly repo: ImMessagesRepository,
    private readonly jobs: JobQueue,
    private readonly ids: IdGenerator,
    maxConcurrent: number,
    hooks: CommitHooks = {},
  ) {
    this.onCommitting = hooks.onCommitting;
    this.onAborted = hooks.onAborted;
    // A batch holds at most MAX_BATCH messages; a failed one fails all its senders.
    this.batcher = new Batcher<StoredMessage[]>({
      run: (batch) => this.write(batch),
      maxBatch: MAX_BATCH,
      weight: (messages) => messages.length,
      concurrency: maxConcurrent,
      failure: 'reject-all',
    });
  }

  /** Resolves once `messages` and their fan-out job are committed. */
  commit(messages: StoredMessage[]): Promise<void> {
    return this.batcher.submit(messages);
  }

  private async write(batch: StoredMessage[][]): Promise<void> {
    const all = batch.flat();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.transaction().execute(async (trx) => {
          await this.repo.insertMessages(trx, all);
          await this.jobs.enqueue(trx, { queue: FANOUT_QUEUE, payload: { messages: all.map((m) => ({ appId: m.appId, msgId: m.msgId })) } satisfies FanoutPayload });
          // Announce before COMMIT: on PostgreSQL another connection of this process can claim
          // the fan-out job as soon as the server commits, before our commit call returns.
          this.onCommitting?.(all);
        });
        break;
      } catch (error) {
        this.onAborted?.(all);
        // An id another instance issued in the same ms: take fresh ids and write again.
        if (isUniqueViolation(error) && attempt < MAX_ID_ATTEMPTS) {
          for (const m of all) m.msgId = this.ids.next();
          continue;
        }
        throw error;
      }
    }
    this.jobs.notify(FANOUT_QUEUE);
  }
}
