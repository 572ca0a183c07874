/**
 * The delivery engine: job handlers that carry out what policy.ts and ban.ts decide.
 *
 * Every rule has its own durable queue `callbacks.rule.{id}` with its own bounded worker pool,
 * so a receiver that hangs or fails only ever occupies its own rule's workers, and (through the
 * outbound sender's budget per rule) only the rule's share of the connections to its origin:
 * other rules and other apps keep their latency, even on the same host and port. Re-sends from the exception store run on `callbacks.resend`.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { dateKey } from '@parley/protocol';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Clock } from '../../kernel/clock.js';
import type { Job, JobQueue, JobResult } from '../jobs/ports.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { BanStore } from './ban-registry.js';
import type { RuleDirectory } from './directory.js';
import type { CallbackEvents, RuleRef } from './events.js';
import { classifyAttempt, MAX_ANSWER_BYTES, nextStep, type AttemptOutcome } from './policy.js';
import type { CallbackRule, CallbacksRepository, CallbacksTransaction, StoredRecord } from './ports.js';
import { BANNED_ERROR_PREFIX, REDRIVE_SCAN_ROWS, redrivePage, type RedrivePage, type RedriveWindow } from './redrive.js';
import { ResendPacer } from './resend-pacer.js';
import { recordFacts, type UnsignedRecord } from './record.js';
import { ruleSigningKeys, signedRequest } from './record-signing.js';

export const RESEND_QUEUE = 'callbacks.resend';

const RULE_QUEUE_PREFIX = 'callbacks.rule.';
export const ruleQueue = (ruleId: number): string => `${RULE_QUEUE_PREFIX}${ruleId}`;
/** The rule of a queue `ruleQueue` named; undefined for any other queue. */
function ruleOfQueue(queue: string): number | undefined {
  const id = queue.startsWith(RULE_QUEUE_PREFIX) ? queue.slice(RULE_QUEUE_PREFIX.length) : '';
  return /^\d+$/.test(id) ? Number(id) : undefined;
}
/**
 * An app's re-send pages run one at a time, in the order they were queued: pages of several
 * re-sends of the app take turns, and the ones waiting are not claimed (and put back) at every
 * page, however many re-sends were requested.
 */
export const resendOrderingKey = (appId: string): string => `callbacks.resend.${appId}`;

export interface DeliverPayload {
  ruleId: number;
  record: UnsignedRecord;
}

export interface ResendPayload {
  appId: string;
  dateKey: string;
  targetUrl?: string;
  /** Records with a larger id only: a key's records are re-sent in pages, one job each. */
  afterId?: number;
  /** A re-drive after a ban (redrive.ts): only the rule's records stored during it, one at a time, in order. */
  redrive?: RedriveWindow;
}

export interface DeliveryOptions {
  attemptTimeoutMs: number;
  ruleConcurrency: number;
  dateKeyZone: string;
  /** Records of one key re-sent at once. */
  resendParallelism?: number;
  /** Records of one app re-sent per second on this instance. */
  resendPerSecond: number;
}

/** What the callbacks engine and service both work with. */
export interface CallbacksCore {
  /** Transactions that write jobs (a re-send's next page), and the exception store's key with a job. */
  uow: UnitOfWork<CallbacksTransaction>;
  repo: CallbacksRepository;
  directory: RuleDirectory;
  bans: BanStore;
  jobs: JobQueue;
  outbound: OutboundSender;
  clock: Clock;
}

export class CallbackDelivery {
  private readonly registered = new Set<number>();
  private readonly pacer: ResendPacer;
  /** Pending wake-ups of paced pages, by due time. */
  private readonly wakes = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly deps: CallbacksCore & { events: CallbackEvents },
    private readonly options: DeliveryOptions,
  ) {
    this.pacer = new ResendPacer(options.resendPerSecond, deps.clock);
  }

  /** Registers the resend worker; call once before the job queue starts. */
  install(): void {
    this.deps.jobs.work<ResendPayload>(RESEND_QUEUE, (job) => this.resend(job), {
      concurrency: 4,
      leaseMs: this.leaseMs() * 4,
    });
  }

  /** Starts the worker of a rule's queue in this process, once. */
  ensureWorker(ruleId: number): void {
    if (this.registered.has(ruleId)) return;
    this.registered.add(ruleId);
    this.deps.jobs.work<DeliverPayload>(ruleQueue(ruleId), (job) => this.deliver(job), {
      concurrency: this.options.ruleConcurrency,
      leaseMs: this.leaseMs(),
    });
  }

  /**
   * Starts the worker of `queue` when it is a rule's queue (jobs taken over from a dead instance
   * may belong to a rule this process never delivered for). Other queues are left alone.
   */
  adoptQueue(queue: string): void {
    const ruleId = ruleOfQueue(queue);
    if (ruleId !== undefined) this.ensureWorker(ruleId);
  }

  /** Lease long enough for two attempts and the bookkeeping after them. */
  private leaseMs(): number {
    return 2 * this.options.attemptTimeoutMs + 10_000;
  }

  /** One live record for one rule: attempt, one immediate retry, then store or drop. */
  async deliver(job: Job<DeliverPayload>): Promise<JobResult> {
    const { ruleId, record } = job.payload;
    const { directory, bans, clock, events } = this.deps;
    // Several instances: first make sure no other instance changed the rule or its app.
    const checking = directory.check(ruleId);
    if (checking) await checking;
    // Once per record: read from the cache without awaiting when it holds both (the usual case).
    const cached = directory.cached(ruleId);
    const rule = cached ? cached.rule : await directory.loadRule(ruleId);
    if (!rule) return { status: 'discard', error: 'rule deleted' };
    const ref: RuleRef = { ruleId, appId: rule.appId, rule: rule.name };
    const { settings } = cached?.app ?? (await directory.loadApp(rule.appId));
    if (!settings.enabled || !rule.enabled) {
      events.emit('record.finished', { ...ref, result: 'dropped', reason: 'disabled' });
      return { status: 'done' };
    }
    if (await bans.isBanned(rule)) {
      const until = new Date((await bans.stateOf(rule)).bannedUntil ?? clock.now()).toISOString();
      return this.giveUp(rule, ref, record, settings.storeFailed, `${BANNED_ERROR_PREFIX}${until}`, 'banned');
    }

    let lastError = '';
    // A record under way keeps the rule it started with, for its immediate retry too.
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(ref, record, rule.url, rule, false);
      if (outcome.kind === 'failure') {
        lastError = outcome.error;
        await bans.record(rule, 'failure');
      } else if (outcome.kind === 'overlong') {
        await bans.record(rule, 'overlong');
      }
      const step = nextStep(attempt, outcome);
      if (step === 'done') {
        events.emit('record.finished', {
          ruleId,
          appId: ref.appId,
          rule: ref.rule,
          result: outcome.kind === 'overlong' ? 'overlong' : 'succeeded',
          endToEndMs: clock.now() - record.timestamp,
        });
        return { status: 'done' };
      }
      // The failure just recorded may have banned the rule: then nothing more is sent.
      if (step === 'exhausted' || (await bans.isBanned(rule))) break;
    }
    return this.giveUp(rule, ref, record, settings.storeFailed, lastError, 'failed');
  }

  private async giveUp(
    rule: CallbackRule,
    ref: RuleRef,
    record: UnsignedRecord,
    storeFailed: boolean,
    lastError: string,
    reason: 'failed' | 'banned',
  ): Promise<JobResult> {
    if (!storeFailed) {
      this.deps.events.emit('record.finished', { ...ref, result: 'dropped', reason });
      return { status: 'done' };
    }
    const now = this.deps.clock.now();
    // The exception store keeps the record's event type and message id beside it.
    const { eventType, msgId } = recordFacts(record);
    await this.deps.repo.storeRecords([{ appId: rule.appId, dateKey: dateKey(now, this.options.dateKeyZone), ruleId: rule.id, ruleName: rule.name, record, eventType, msgId, lastError }], now);
    this.deps.events.emit('record.finished', { ...ref, result: 'stored', reason });
    return { status: 'done' };
  }

  private async attempt(ref: RuleRef, record: UnsignedRecord, url: string, keys: Pick<CallbackRule, 'secret' | 'previousSecret'>, resend: boolean): Promise<AttemptOutcome> {
    const now = this.deps.clock.now();
    // The rule's keys are made once per rule object (a rotation reads another one) and sign with both secrets during an overlap.
    const request = signedRequest(record, ruleSigningKeys(keys), now);
    const result = await this.deps.outbound.post({
      url,
      headers: request.headers,
      body: request.body,
      timeoutMs: this.options.attemptTimeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
      // Re-sends share the rule's budget: a hung receiver holds only the rule's share of its origin's connections.
      budgetKey: `rule:${ref.ruleId}`,
    });
    const outcome = classifyAttempt(result);
    this.deps.events.emit('attempt.finished', {
      ruleId: ref.ruleId,
      appId: ref.appId,
      rule: ref.rule,
      outcome: outcome.kind,
      latencyMs: result.latencyMs,
      resend,
      callId: record.callId,
      error: outcome.kind === 'failure' ? outcome.error : undefined,
      ...recordFacts(record),
      ...(result.status !== undefined ? { httpStatus: result.status } : {}),
    });
    return outcome;
  }

  /**
   * Re-sends one page of a key's records, keeping each callId, to `targetUrl` or the rule's
   * current URL, with the same two attempts, then queues the next page as a new job: the key is
   * read once, a page at a time after the last id sent (keyset), and a restart resumes at the
   * page that was running. Pages are paced per app (`ResendPacer`, PARLEY_CALLBACK_RESEND_PER_SECOND).
   * Records stay stored; each notes its re-send's outcome (a failure also its last error). Re-sends are explicit requests, so
   * they neither feed nor respect the rule's ban.
   */
  async resend(job: Job<ResendPayload>): Promise<JobResult> {
    const { appId, dateKey: key, targetUrl, afterId = 0, redrive } = job.payload;
    const parallel = redrive ? 1 : Math.max(1, this.options.resendParallelism ?? 8);
    // A page's worst case (4 records per worker × 2 attempts × timeout) stays inside the lease
    // (4 × (2 × timeout + 10 s)), so no other instance re-claims a re-send still running.
    const pageSize = this.pacer.pageSize(4 * parallel);
    const pace = this.pacer.book(appId, pageSize);
    if (!pace.go) {
      this.wakeAt(pace.at);
      return { status: 'retry', runAt: pace.at };
    }
    // One row more than the page tells whether another page follows.
    const fetched = await this.deps.repo.storedPage(appId, key, afterId, (redrive ? REDRIVE_SCAN_ROWS : pageSize) + 1);
    const { records, nextAfterId } = redrive ? redrivePage(fetched, redrive, pageSize) : plainPage(fetched, pageSize);
    // Let requests that arrived meanwhile run before this page's signing and sending.
    await yieldToEventLoop();
    let next = 0;
    const worker = async () => {
      while (next < records.length) {
        const stored = records[next++] as StoredRecord;
        await this.resendOne(stored, targetUrl);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, records.length) }, worker));
    if (nextAfterId !== undefined) {
      const payload: ResendPayload = { ...job.payload, afterId: nextAfterId };
      await this.deps.uow.run((tx) => tx.jobs.enqueue({ queue: RESEND_QUEUE, payload, runAt: pace.nextAt, orderingKey: resendOrderingKey(appId) }));
      this.wakeAt(pace.nextAt);
    }
    return { status: 'done' };
  }

  /**
   * Wakes the resend workers when a paced page falls due (the queue otherwise polls every 250 ms):
   * one timer per due time, so pages of several apps each start on time.
   */
  private wakeAt(at: number): void {
    if (this.wakes.has(at)) return;
    const timer = setTimeout(() => {
      this.wakes.delete(at);
      // A timer can fire a millisecond before the clock reaches `at`; the claim would then find
      // nothing due and the page would wait for the queue's next poll.
      if (this.deps.clock.now() < at) this.wakeAt(at);
      else this.deps.jobs.notify(RESEND_QUEUE);
    }, Math.max(1, at - this.deps.clock.now()));
    timer.unref();
    this.wakes.set(at, timer);
  }

  /** Drops the pending wake-ups; queued pages stay in the job queue for the next start. */
  stop(): void {
    for (const timer of this.wakes.values()) clearTimeout(timer);
    this.wakes.clear();
  }

  private async resendOne(stored: StoredRecord, targetUrl: string | undefined): Promise<void> {
    const rule = stored.ruleId === null ? undefined : await this.deps.directory.rule(stored.ruleId);
    if (!rule) {
      const error = 'not re-sent: the rule was deleted, so there is no secret to sign with';
      await this.deps.repo.noteResend(stored.id, { result: 'failure', at: this.deps.clock.now(), error });
      return;
    }
    const ref: RuleRef = { ruleId: rule.id, appId: rule.appId, rule: rule.name };
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(ref, stored.record, targetUrl || rule.url, rule, true);
      const step = nextStep(attempt, outcome);
      if (step === 'done') {
        await this.deps.repo.noteResend(stored.id, { result: 'success', at: this.deps.clock.now() });
        return;
      }
      if (step === 'exhausted' && outcome.kind === 'failure') {
        await this.deps.repo.noteResend(stored.id, { result: 'failure', at: this.deps.clock.now(), error: `re-send failed: ${outcome.error}` });
        return;
      }
    }
  }
}

/** A plain re-send page: the first `size` rows, and where the next page starts when more follow. */
function plainPage(rows: readonly StoredRecord[], size: number): RedrivePage {
  const records = rows.slice(0, size);
  return { records, nextAfterId: rows.length > size ? records[records.length - 1]?.id : undefined };
}
