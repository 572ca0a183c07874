/**
 * Live delivery: right after its commit, and before the sender gets its answer, a message is
 * pushed to the receivers online at that moment. The fan-out job then skips them.
 *
 * The job can be claimed the moment the commit lands (on PostgreSQL another connection of this
 * process may claim it before our commit call returns), before the push has decided who is
 * online; so each message is *in flight* from just before its COMMIT until its push ends, and the
 * job waits for that, so the two never both push it to one socket. The ordering is structural and
 * needs no timer: the committer marks the messages in flight inside the transaction (`committing`)
 * and releases them if it throws (`aborted`); otherwise it answers the sender, whose `deliver`
 * releases them in `finally`. A job therefore only ever waits for a push already under way, which
 * ends when its presence calls do; a presence backend that never answers would hold the job's own
 * presence calls just the same, so there is no bound of its own.
 *
 * A failed push (the presence backend unreachable, a socket write that throws) never fails the
 * send: the message is committed, so the sender gets its answer, the failure is reported to
 * `onError`, and the job delivers the message to every receiver, those the push chose included.
 *
 * Guarantees, in this process:
 * - a receiver online at commit gets the message: from the push, or from the job when the push
 *   failed (once, unless the push failed after reaching some of them: those may get a second copy
 *   with the same msg_id);
 * - the job skips the receivers who got it live and delivers to those who came online since;
 * - after a crash nothing is remembered, so the job treats every receiver afresh (online now:
 *   pushed; offline: stored). A job run by another instance may push a second copy with the same
 *   msg_id to a receiver who got it live (clients de-duplicate by msg_id).
 */
import type { Clock } from '../../kernel/clock.js';
import { refKey, type ImGroupsRepository, type MessageRef, type StoredMessage } from './ports.js';
import type { Presence } from './presence.js';
import { messageFrame, receiversOf } from './receivers.js';

/** Records of who got a message live, older than this, are dropped (their job ran elsewhere or never will here). */
const RECORD_MS = 5 * 60_000;

export class LiveDeliveries {
  /** In flight: `appId msgId` → the resolvers of fan-out jobs waiting on it (null while none waits). */
  private readonly inFlight = new Map<string, Array<() => void> | null>();
  /** Pushed: `appId msgId` → the receivers that got the message live, and when. */
  private readonly pushed = new Map<string, { users: Set<string>; at: number }>();
  private lastSweep = 0;

  constructor(
    private readonly presence: Presence,
    private readonly groups: ImGroupsRepository,
    private readonly clock: Clock,
    /** Told of a push that failed; the fan-out job delivers its messages. */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** The committer calls this synchronously just before the COMMIT of `messages` (their ids are final then). */
  readonly committing = (messages: StoredMessage[]): void => {
    for (const message of messages) this.inFlight.set(refKey(message), null);
  };

  /** The committer calls this when the transaction marked by `committing` did not commit. */
  readonly aborted = (messages: StoredMessage[]): void => {
    this.release(messages);
  };

  /** Pushes committed messages to the receivers online now; the sender awaits it before answering. Never rejects. */
  async deliver(messages: StoredMessage[]): Promise<void> {
    try {
      await this.push(messages);
    } catch (error) {
      // The job must not skip anyone on the word of a push that failed.
      this.forget(messages);
      this.onError(error);
    } finally {
      this.release(messages);
    }
  }

  /** Resolves once none of `refs` is in flight; undefined when none is now. */
  settled(refs: readonly MessageRef[]): Promise<unknown> | undefined {
    let waits: Array<Promise<void>> | undefined;
    for (const ref of refs) {
      const key = refKey(ref);
      if (!this.inFlight.has(key)) continue;
      let waiters = this.inFlight.get(key);
      if (!waiters) this.inFlight.set(key, (waiters = []));
      const list = waiters;
      (waits ??= []).push(new Promise<void>((resolve) => list.push(resolve)));
    }
    return waits && Promise.all(waits);
  }

  /** The receivers that got the message live in this process, if any. */
  gotLive(ref: MessageRef): ReadonlySet<string> | undefined {
    return this.pushed.get(refKey(ref))?.users;
  }

  /** The fan-out job has run: its records are no longer needed. */
  forget(refs: readonly MessageRef[]): void {
    for (const ref of refs) this.pushed.delete(refKey(ref));
  }

  private release(messages: StoredMessage[]): void {
    for (const message of messages) {
      const key = refKey(message);
      const waiters = this.inFlight.get(key);
      this.inFlight.delete(key);
      if (waiters) for (const resolve of waiters) resolve();
    }
  }

  private async push(messages: StoredMessage[]): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastSweep > RECORD_MS) {
      this.lastSweep = now;
      for (const [key, entry] of this.pushed) if (now - entry.at > RECORD_MS || entry.at > now) this.pushed.delete(key);
    }
    for (const message of messages) {
      const online = [...(await this.presence.onlineAmong(message.appId, await receiversOf(this.groups, message)))];
      if (online.length === 0) continue;
      this.pushed.set(refKey(message), { users: new Set(online), at: now });
      await this.presence.deliver(message.appId, online, messageFrame(message));
    }
  }
}
