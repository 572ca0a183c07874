/**
 * Fan-out of an accepted message: the handler of the `im.fanout` job.
 *
 *  1. Decide the receivers: the user (`chat`), the members but the sender (`groupchat`,
 *     `chatroom`), and which of them are online.
 *  2. In one transaction for all the messages of the job: mark them fanned out, store them for
 *     the offline receivers (one-to-one and groups; chat rooms never), and hand each event to the
 *     PostSendHook so its durable work commits with ours. A re-run after a crash finds the mark
 *     and stops there.
 *  3. After commit: push to the online sockets, wake the queues the hook named, and drain any
 *     receiver that came online while we were storing.
 *
 * Live delivery does not wait for the job: right after the message commits, `deliverLive`
 * pushes it to the receivers online at that moment and remembers who got it, in this process.
 * The job then skips them, delivers to receivers that came online since, and stores it for the
 * rest. After a crash nothing is remembered, so the job treats every receiver afresh (online now:
 * pushed; offline: stored); a job run by another instance may push a second copy with the same
 * msg_id to a receiver who already got it live (clients de-duplicate by msg_id).
 *
 * Stored messages are drained to a socket oldest first (by msg_id), one drain per user at a time.
 */
import type { ImMessageFrame } from '@parley/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { Database } from '../../storage/schema.js';
import type { Job, JobQueue, JobResult } from '../jobs/ports.js';
import type { FanoutPayload } from './commit.js';
import { refKey, type ImGroupsRepository, type ImMessagesRepository, type StoredMessage } from './ports.js';
import type { MessageEvent, PostSendHook } from './post-send.js';
import type { Presence } from './presence.js';

const DRAIN_BATCH = 100;

/** What the fan-out decided for one message before its transaction. */
interface Plan {
  message: StoredMessage;
  appkey: string;
  online: Set<string>;
  offline: string[];
}

/** Longest a fan-out job waits for the live delivery of its messages in this process. */
const LIVE_WAIT_MS = 10_000;

/** Live-delivery records older than this are dropped (their job ran elsewhere or never will here). */
const LIVE_RECORD_MS = 5 * 60_000;

export function messageFrame(m: StoredMessage, offline = false): ImMessageFrame {
  return {
    op: 'message',
    msg_id: m.msgId,
    from: m.from,
    to: m.to,
    chat_type: m.chatType,
    ...(m.chatType === 'chat' ? {} : { group_id: m.to }),
    timestamp: m.timestamp,
    ...(offline ? { offline: true } : {}),
    payload: m.payload,
  };
}

export class ImDelivery {
  /** Per user: the last drain chained, and the one not started yet (if any). */
  private readonly drains = new Map<string, { last?: Promise<void>; waiting?: Promise<void> }>();
  /** `appId msgId` → receivers that got the message live, and when. */
  private readonly live = new Map<string, { users: Set<string>; at: number }>();
  /**
   * Live deliveries announced at commit time and not finished yet. The fan-out job can be claimed
   * the moment the commit lands, before `deliverLive` has decided who is online; it waits here so
   * the two never both push the message to the same socket.
   */
  private readonly liveInFlight = new Map<string, { done: Promise<void>; finish: () => void }>();
  private lastSweep = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly messages: ImMessagesRepository,
    private readonly groups: ImGroupsRepository,
    private readonly presence: Presence,
    private readonly jobs: JobQueue,
    private readonly postSend: () => PostSendHook,
    private readonly clock: Clock,
    private readonly appkeyOf: (appId: string) => Promise<string | undefined>,
  ) {}

  private async receiversOf(message: StoredMessage): Promise<string[]> {
    if (message.chatType === 'chat') return [message.to];
    return (await this.groups.members(message.to)).map((m) => m.username).filter((u) => u !== message.from);
  }

  /** Called synchronously as messages commit, before their fan-out job can be claimed. */
  readonly expectLive = (messages: StoredMessage[]): void => {
    for (const message of messages) {
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      // Never wait forever: if live delivery is not attempted the job goes ahead on its own.
      const timer = setTimeout(finish, LIVE_WAIT_MS);
      timer.unref();
      this.liveInFlight.set(refKey(message), { done: done.finally(() => clearTimeout(timer)), finish });
    }
  };

  /** Lets fan-out jobs waiting on these messages go ahead: live delivery finished, or the write rolled back. */
  readonly releaseLive = (messages: StoredMessage[]): void => {
    for (const message of messages) {
      const key = refKey(message);
      this.liveInFlight.get(key)?.finish();
      this.liveInFlight.delete(key);
    }
  };

  /** Pushes freshly committed messages to the receivers online now (called before the 200). */
  readonly deliverLive = async (messages: StoredMessage[]): Promise<void> => {
    try {
      await this.pushLive(messages);
    } finally {
      this.releaseLive(messages);
    }
  };

  private async pushLive(messages: StoredMessage[]): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastSweep > LIVE_RECORD_MS) {
      this.lastSweep = now;
      for (const [key, entry] of this.live) if (now - entry.at > LIVE_RECORD_MS || entry.at > now) this.live.delete(key);
    }
    for (const message of messages) {
      const online = [...(await this.presence.onlineAmong(message.appId, await this.receiversOf(message)))];
      if (online.length === 0) continue;
      this.live.set(refKey(message), { users: new Set(online), at: now });
      await this.presence.deliver(message.appId, online, messageFrame(message));
    }
  }

  readonly handle = async (job: Job<FanoutPayload>): Promise<JobResult> => {
    const refs = job.payload.messages;
    await Promise.all(refs.map((ref) => this.liveInFlight.get(refKey(ref))?.done));
    const pending = await this.messages.pendingFanout(refs);
    const plans: Plan[] = [];
    for (const message of pending) {
      const appkey = await this.appkeyOf(message.appId);
      if (!appkey) continue;
      const gotLive = this.live.get(refKey(message))?.users ?? new Set<string>();
      const receivers = (await this.receiversOf(message)).filter((u) => !gotLive.has(u));
      const online = await this.presence.onlineAmong(message.appId, receivers);
      const offline = message.chatType === 'chatroom' ? [] : receivers.filter((u) => !online.has(u));
      plans.push({ message, appkey, online, offline });
    }

    const outcome =
      plans.length === 0
        ? { plans, notify: new Set<string>() }
        : await this.db.transaction().execute(async (trx) => {
            const marked = await this.messages.markFanoutDone(trx, plans.map((p) => p.message));
            // Another run got there first for the others: their effects are already committed.
            const mine = plans.filter((p) => marked.has(refKey(p.message)));
            const now = this.clock.now();
            await this.messages.storeOffline(
              trx,
              mine.flatMap((p) => p.offline.map((username) => ({ appId: p.message.appId, msgId: p.message.msgId, username }))),
              now,
            );
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
            const result = events.length > 0 ? await this.postSend().onMessages(trx, events) : { notify: [] };
            return { plans: mine, notify: new Set(result.notify) };
          });
    for (const ref of refs) this.live.delete(refKey(ref));

    for (const { message, online } of outcome.plans) {
      if (online.size > 0) await this.presence.deliver(message.appId, [...online], messageFrame(message));
    }
    for (const queue of outcome.notify) this.jobs.notify(queue);
    // A receiver whose socket became ready after we looked gets the stored copy now.
    for (const { message, offline } of outcome.plans) {
      if (offline.length === 0) continue;
      const nowOnline = await this.presence.onlineAmong(message.appId, offline);
      for (const name of nowOnline) {
        void this.drain(message.appId, name);
        this.presence.requestDrain(message.appId, name);
      }
    }
    return { status: 'done' };
  };

  /**
   * Pushes the user's stored messages to their sockets, oldest first. One drain per user at a
   * time, and at most one waiting behind it: a drain not started yet already covers whatever a
   * later request would, so requests never pile up behind a socket that is slow to take them.
   */
  drain(appId: string, username: string): Promise<void> {
    const key = `${appId}\u0000${username}`;
    const entry = this.drains.get(key) ?? {};
    if (entry.waiting) return entry.waiting;
    const next: Promise<void> = (entry.last ?? Promise.resolve())
      .then(() => {
        if (entry.waiting === next) entry.waiting = undefined;
        return this.drainNow(appId, username);
      })
      .catch(() => undefined);
    entry.waiting = next;
    entry.last = next;
    this.drains.set(key, entry);
    void next.then(() => {
      if (this.drains.get(key)?.last === next) this.drains.delete(key);
    });
    return next;
  }

  private async drainNow(appId: string, username: string): Promise<void> {
    for (;;) {
      // Claiming marks rows delivered: only claim while a socket is there to take them.
      if (this.presence.connections(appId, username) === 0) return;
      const batch = await this.messages.claimOffline(appId, username, this.clock.now(), DRAIN_BATCH);
      for (const m of batch) this.presence.deliverToAll(appId, username, messageFrame(m, true));
      if (batch.length < DRAIN_BATCH) return;
      // The next batch only once the sockets have taken this one, so a slow socket holds one batch
      // at most, never the backlog (and a short backlog never waits at all).
      await this.presence.writable(appId, username);
    }
  }
}
