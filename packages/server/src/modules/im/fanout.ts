/**
 * Fan-out of accepted messages: the handler of the `im.fanout` job.
 *
 *  1. Decide the receivers: the user (`chat`), the members but the sender (`groupchat`,
 *     `chatroom`), less those recorded as pushed live (`StoredMessage.live`) by an instance that
 *     still lives (itself, or another on the cluster's word); which of them are online; and the
 *     post-send work of each message (PostSendHook.jobsFor, which only reads).
 *  2. In one transaction for all the messages of the job (the unit of work): mark them fanned
 *     out, store them for the offline receivers (one-to-one and groups; chat rooms never), and
 *     write the post-send jobs of the messages this run marked. A re-run after a crash finds the
 *     mark and stops there.
 *  3. After commit: push to the online receivers (one a push cannot reach gets it stored), hand
 *     the post-send jobs written to the hook, and drain any receiver that came online while we
 *     were storing.
 *
 * The offline reads run the same steps for one user's pending messages (`settleFor`), so what a
 * send answered is visible there at once; the mark makes the job and the read agree.
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Job, JobResult, NewJob } from '../jobs/ports.js';
import type { FanoutPayload } from './commit.js';
import type { Drains } from './drains.js';
import type { KeepUnreached } from './live-deliveries.js';
import type { ImMetrics } from './metrics.js';
import { refKey, type ImGroupsRepository, type ImMessagesRepository, type ImTransaction, type MessageRef, type StoredMessage } from './ports.js';
import type { MessageEvent, PostSendHook } from './post-send.js';
import type { Presence } from './presence.js';
import { messageFrame, receiversOf } from './receivers.js';

export interface FanoutDeps {
  /** The fan-out's transaction: the marks, the offline rows and the post-send jobs. */
  uow: UnitOfWork<ImTransaction>;
  messages: ImMessagesRepository;
  groups: ImGroupsRepository;
  presence: Presence;
  /** The post-send work of each message (the callbacks module's hook, or none). */
  postSend: PostSendHook;
  clock: Clock;
  appkeyOf: (appId: string) => Promise<string | undefined>;
  /** Whether the instance that recorded a message's live receivers still lives (and so pushes them). */
  pusherAlive: (instanceId: string) => Promise<boolean>;
  /** Stores a message for receivers a push could not reach. */
  keep: KeepUnreached;
  drains: Drains;
  metrics: Pick<ImMetrics, 'offlineStored' | 'fanoutDone' | 'pushed'>;
}

/** Messages fanned out per round when a read settles a user's pending fan-out. */
const SETTLE_PAGE = 500;

/** What the fan-out decided for one message before its transaction. */
interface Plan {
  message: StoredMessage;
  online: Set<string>;
  offline: string[];
  /** Its post-send jobs, written if this run marks it. */
  jobs: NewJob[];
}

export class Fanout {
  constructor(private readonly deps: FanoutDeps) {}

  readonly handle = async (job: Job<FanoutPayload>): Promise<JobResult> => {
    await this.run(job.payload.messages);
    this.deps.metrics.fanoutDone((this.deps.clock.now() - job.createdAt) / 1000);
    return { status: 'done' };
  };

  /**
   * Runs the pending fan-out of every message the user may receive offline, so a read of their
   * offline store made after a send answered sees that message. The job still runs later and
   * finds them done.
   */
  async settleFor(appId: string, username: string): Promise<void> {
    for (;;) {
      const refs = await this.deps.messages.pendingFanoutFor(appId, username, SETTLE_PAGE);
      if (refs.length > 0) await this.run(refs);
      if (refs.length < SETTLE_PAGE) return;
    }
  }

  private async run(refs: MessageRef[]): Promise<void> {
    const plans = await this.plan(refs);
    if (plans.length === 0) return;
    const { mine, stored, jobs } = await this.store(plans);
    if (stored > 0) this.deps.metrics.offlineStored(stored);
    if (jobs.length > 0) this.deps.postSend.committed(jobs);
    await this.finish(mine);
  }

  private async plan(refs: MessageRef[]): Promise<Plan[]> {
    const { messages, presence, groups } = this.deps;
    const pending = await messages.pendingFanout(refs);
    const plans: Plan[] = [];
    const events: MessageEvent[] = [];
    for (const message of pending) {
      const appkey = await this.deps.appkeyOf(message.appId);
      if (!appkey) continue;
      const live = message.live && (await this.deps.pusherAlive(message.live.by)) ? new Set(message.live.to) : undefined;
      const receivers = (await receiversOf(groups, message)).filter((u) => !live?.has(u));
      const online = await presence.onlineAmong(message.appId, receivers);
      const offline = message.chatType === 'chatroom' || message.onlineOnly ? [] : receivers.filter((u) => !online.has(u));
      plans.push({ message, online, offline, jobs: [] });
      events.push(eventOf(message, appkey, offline));
    }
    const jobs = await this.deps.postSend.jobsFor(events);
    plans.forEach((plan, i) => (plan.jobs = jobs[i] ?? []));
    return plans;
  }

  private store(plans: Plan[]): Promise<{ mine: Plan[]; stored: number; jobs: NewJob[] }> {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async (tx) => {
      const marked = await tx.im.markFanoutDone(plans.map((p) => p.message));
      // Another run got there first for the others: their effects are already committed.
      const mine = plans.filter((p) => marked.has(refKey(p.message)));
      const rows = mine.flatMap((p) => p.offline.map((username) => ({ appId: p.message.appId, msgId: p.message.msgId, username })));
      await tx.im.storeOffline(rows, now);
      // One statement for the whole run, in message order (so callbacks keep message order).
      const jobs = mine.flatMap((p) => p.jobs);
      await tx.jobs.enqueue(jobs);
      return { mine, stored: rows.length, jobs };
    });
  }

  private async finish(plans: Plan[]): Promise<void> {
    const { presence, drains } = this.deps;
    const missed: Array<MessageRef & { usernames: string[] }> = [];
    for (const { message, online } of plans) {
      if (online.size === 0) continue;
      const reached = await presence.deliver(message.appId, [...online], messageFrame(message));
      this.deps.metrics.pushed('fanout', reached.size);
      const unreached = message.onlineOnly ? [] : [...online].filter((u) => !reached.has(u));
      if (unreached.length > 0) missed.push({ appId: message.appId, msgId: message.msgId, usernames: unreached });
    }
    if (missed.length > 0) await this.deps.keep(missed);
    // A receiver whose socket became ready after we looked gets the stored copy now.
    for (const { message, offline } of plans) {
      if (offline.length === 0) continue;
      const nowOnline = await presence.onlineAmong(message.appId, offline);
      for (const name of nowOnline) {
        void drains.drain(message.appId, name);
        presence.requestDrain(message.appId, name);
      }
    }
  }
}

function eventOf(message: StoredMessage, appkey: string, offlineReceivers: string[]): MessageEvent {
  return {
    appId: message.appId,
    appkey,
    msgId: message.msgId,
    from: message.from,
    to: message.to,
    chatType: message.chatType,
    ...(message.chatType === 'chat' ? {} : { groupId: message.to }),
    timestamp: message.timestamp,
    payload: message.payload,
    source: message.source,
    offlineReceivers,
  };
}
