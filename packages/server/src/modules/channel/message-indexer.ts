/**
 * The background indexer of the conversation search (docs/channel.md, "Listing and history"). The
 * send-message path writes nothing for the search: this copies the text of new messages into the
 * engine's text index behind a watermark (the last message id it has read), off the request, in
 * batches. The list's search reads the index up to the watermark and scans the messages past it,
 * so a message is found the moment it is stored, before and after this ran.
 *
 * Ids come from a sequence, but transactions commit in any order: a message with a lower id may
 * still be uncommitted while a higher one is visible. The watermark therefore stops before a gap in
 * the ids until the message after the gap is `graceMs` old; a gap that old is taken for a message
 * that will never come (a rolled-back or refused insert, a deletion), since no send transaction
 * stays open that long. Runs are idempotent: each step moves the watermark only from the value it
 * read, and a run resumes from the stored watermark.
 */
import type { Clock } from '../../kernel/clock.js';
import type { MessageSearchIndex, PendingMessage } from './message-search-ports.js';

/** Messages read per step by default (PARLEY_SEARCH_INDEX_BATCH's default). */
export const INDEX_BATCH = 250;

export interface MessageIndexerOptions {
  /** Messages read per step (one transaction); INDEX_BATCH by default. */
  batch?: number;
  /** How old the message after a gap in the ids must be before the watermark passes the gap, ms. */
  graceMs?: number;
  /**
   * Steps per run at most (1 by default); the next run goes on. One step a run holds SQLite's
   * writer briefly and takes a bounded share of the CPU beside the send-message path.
   */
  maxSteps?: number;
}

/** The highest id the watermark may move to over `messages` (ascending), starting from `from`. */
export function reachable(from: number, messages: readonly PendingMessage[], settledBefore: number): number {
  let to = from;
  for (const m of messages) {
    if (m.id !== to + 1 && m.createdAt > settledBefore) break;
    to = m.id;
  }
  return to;
}

export class MessageIndexer {
  private readonly batch: number;
  private readonly graceMs: number;
  private readonly maxSteps: number;
  private running: Promise<number> | undefined;

  constructor(
    private readonly index: MessageSearchIndex,
    private readonly clock: Clock,
    options: MessageIndexerOptions = {},
  ) {
    this.batch = options.batch ?? INDEX_BATCH;
    this.graceMs = options.graceMs ?? 10_000;
    this.maxSteps = options.maxSteps ?? 1;
  }

  /**
   * Indexes the messages past the watermark, a batch per step, until none is left that may be
   * indexed now (or `maxSteps`). Answers how many messages the watermark passed. A run asked while
   * one is under way in this process joins it.
   */
  run(): Promise<number> {
    this.running ??= this.steps().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async steps(): Promise<number> {
    let passed = 0;
    for (let step = 0; step < this.maxSteps; step++) {
      const { indexedTo, messages } = await this.index.pending(this.batch);
      const to = reachable(indexedTo, messages, this.clock.now() - this.graceMs);
      if (to === indexedTo) break;
      if (!(await this.index.advance(indexedTo, to))) continue;
      passed += messages.filter((m) => m.id <= to).length;
      if (to !== messages[messages.length - 1]?.id || messages.length < this.batch) break;
    }
    return passed;
  }
}
