/**
 * Fan-out of accepted messages: the handler of the `im.fanout` job.
 *
 *  1. Wait until the live push of its messages in this process has ended (live-deliveries.ts),
 *     then decide the receivers: the user (`chat`), the members but the sender (`groupchat`,
 *     `chatroom`), less those who got it live, and which of them are online.
 *  2. In one transaction for all the messages of the job: mark them fanned out, store them for
 *     the offline receivers (one-to-one and groups; chat rooms never), and hand each event to the
 *     PostSendHook so its durable work commits with ours. A re-run after a crash finds the mark
 *     and stops there.
 *  3. After commit: push to the online sockets, wake the queues the hook named, and drain any
 *     receiver that came online while we were storing.
 *
 * The offline reads run the same steps for one user's pending messages (`settleFor`), so what a
 * send answered is visible there at once; the mark makes the job and the read agree.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { Database } from '../../storage/schema.js';
import type { Job, JobQueue, JobResult } from '../jobs/ports.js';
import type { FanoutPayload } from './commit.js';
import type { Drains } from './drains.js';
import type { LiveDeliveries } from './live-deliveries.js';
import type { ImMetrics } from './metrics.js';
import { refKey, type ImGroupsRepository, type ImMessagesRepository, type MessageRef, type StoredMessage } from './ports.js';
import type { MessageEvent, PostSendHook } from './post-send.js';
import type { Presence } from './presence.js';
import { messageFrame, receiversOf } from './receivers.js';

export interface FanoutDeps {
  /** For the transaction that marks, stores and runs the post-send hook. */
  db: Kysely<Database>;
  messages: ImMessagesRepository;
  groups: ImGroupsRepository;
  presence: Presence;
  jobs: JobQueue;
  /** Called in every fan-out transaction (the callbacks module's hook, or none). */
  postSend: PostSendHook;
  clock: Clock;
  appkeyOf: (appId: string) => Promise<string | undefined>;
  live: LiveDeliveries;
  drains: Drains;
  metrics: Pick<ImMetrics, 'offlineStored' | 'fanoutDone'>;
}

/** Messages fanned out per round when a read settles a user's pending fan-out. */
const SETTLE_PAGE = 500;

/** What the fan-out decided for one message before its transaction. */
interface Plan {
  message: StoredMessage;
  appkey: string;
  online: Set<string>;
  offline: string[];
}

interface Outcome {
  /** The plans whose message this run marked (another run did the others). */
  plans: Plan[];
  /** Job queues the post-send hook asked to wake. */
  notify: Set<string>;
  /** Offline rows this run committed. */
  stored: number;
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
    await this.deps.live.settled(refs);
    const plans = await this.plan(refs);
    const outcome = plans.length === 0 ? { plans, notify: new Set<string>(), stored: 0 } : await this.store(plans);
    this.deps.live.forget(refs);
    if (outcome.stored > 0) this.deps.metrics.offlineStored(outcome.stored);
    await this.finish(outcome);
  }

  private async plan(refs: MessageRef[]): Promise<Plan[]> {
    const { messages, presence, live, groups } = this.deps;
    const pending = await messages.pendingFanout(refs);
    const plans: Plan[] = [];
    for (const message of pending) {
      const appkey = await this.deps.appkeyOf(message.appId);
      if (!appkey) continue;
      const gotLive = live.gotLive(message) ?? new Set<string>();
      const receivers = (await receiversOf(groups, message)).filter((u) => !gotLive.has(u));
      const online = await presence.onlineAmong(message.appId, receivers);
      const offline = message.chatType === 'chatroom' ? [] : receivers.filter((u) => !online.has(u));
      plans.push({ message, appkey, online, offline });
    }
    return plans;
  }

  private store(plans: Plan[]): Promise<Outcome> {
    const { db, messages, clock, postSend } = this.deps;
    return db.transaction().execute(async (trx) => {
      const marked = await messages.markFanoutDone(trx, plans.map((p) => p.message));
      // Another run got there first for the others: their effects are already committed.
      const mine = plans.filter((p) => marked.has(refKey(p.message)));
      const now = clock.now();
      const rows = mine.flatMap((p) => p.offline.map((username) => ({ appId: p.message.appId, msgId: p.message.msgId, username })));
      await messages.storeOffline(trx, rows, now);
      const events: MessageEvent[] = mine.map(({ message, appkey, offline }) => ({
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
        offlineReceivers: offline,
      }));
      const result = events.length > 0 ? await postSend.onMessages(trx, events) : { notify: [] };
      return { plans: mine, notify: new Set(result.notify), stored: rows.length };
    });
  }

  private async finish(outcome: Outcome): Promise<void> {
    const { presence, jobs, drains } = this.deps;
    for (const { message, online } of outcome.plans) {
      if (online.size > 0) await presence.deliver(message.appId, [...online], messageFrame(message));
    }
    for (const queue of outcome.notify) jobs.notify(queue);
    // A receiver whose socket became ready after we looked gets the stored copy now.
    for (const { message, offline } of outcome.plans) {
      if (offline.length === 0) continue;
      const nowOnline = await presence.onlineAmong(message.appId, offline);
      for (const name of nowOnline) {
        void drains.drain(message.appId, name);
        presence.requestDrain(message.appId, name);
      }
    }
  }
}
