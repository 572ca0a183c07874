/**
 * Live delivery: a message reaches the receivers online when it is sent at once, from the
 * sender's instance, before the sender gets its answer. Who those are is decided before the
 * message commits and recorded with it (`StoredMessage.live`: the receivers, and this instance's
 * id), so whoever runs its fan-out, on any instance, knows them without asking this process:
 *
 *   decide (receivers online now) ──▶ commit (with the record) ──▶ push to exactly them
 *                                                                    │ one not reached (its socket
 *                                                                    ▼ closed meanwhile), or a push
 *                                                           stored for them (OfflineStore.keep) that failed
 *
 * The fan-out (fanout.ts) leaves the recorded receivers to the pushing instance while it lives,
 * and delivers to everyone else; so no receiver gets it from both, and none from neither. If the
 * pushing instance died before pushing, its fan-out job is released to another instance
 * (cluster take-over) that finds the recorder dead and treats every receiver afresh.
 */
import { ownCopyCandidates } from './devices.js';
import type { ImMetrics } from './metrics.js';
import type { ImGroupsRepository, MessageRef, StoredMessage } from './ports.js';
import type { Presence } from './presence.js';
import { messageFrame, receiversOf } from './receivers.js';

/** Messages some of whose live receivers were not reached: stored for those (never lost). */
export type KeepUnreached = (missed: Array<MessageRef & { usernames: string[] }>) => Promise<void>;

export class LiveDeliveries {
  constructor(
    private readonly presence: Presence,
    private readonly groups: ImGroupsRepository,
    /** This instance's id, recorded as the pusher. */
    private readonly instanceId: string,
    private readonly keep: KeepUnreached,
    private readonly metrics: Pick<ImMetrics, 'pushed'>,
    /** Told of a push that failed; its receivers get the message stored. */
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Whether a sender has a device other than `resource` (devices.ts); default: ask the commit. */
    private readonly hasOtherDevice: (appId: string, username: string, resource: string) => Promise<boolean> = async () => true,
  ) {}

  /** Before the commit: records on each message who gets it live (its receivers online now). */
  async decide(messages: StoredMessage[]): Promise<void> {
    for (const message of messages) {
      const online = await this.presence.onlineAmong(message.appId, await receiversOf(this.groups, message));
      if (online.size > 0) message.live = { by: this.instanceId, to: [...online] };
    }
  }

  /** After the commit: pushes each message to its recorded receivers. Never rejects. */
  async deliver(messages: readonly StoredMessage[]): Promise<void> {
    const missed: Array<MessageRef & { usernames: string[] }> = [];
    for (const message of messages) {
      if (!message.live) continue;
      const to = message.live.to;
      try {
        const reached = await this.presence.deliver(message.appId, to, messageFrame(message));
        this.metrics.pushed('live', reached.size);
        const unreached = message.onlineOnly ? [] : to.filter((u) => !reached.has(u));
        if (unreached.length > 0) missed.push({ appId: message.appId, msgId: message.msgId, usernames: unreached });
      } catch (error) {
        this.onError(error);
        if (!message.onlineOnly) missed.push({ appId: message.appId, msgId: message.msgId, usernames: to });
      }
    }
    if (missed.length > 0) await this.keep(missed).catch(this.onError);
  }

  /**
   * Multi-device, before the commit: when no other device of the sender is online now (`except`,
   * the sending connection's id; '' for none), marks the messages to be stored for the sender's
   * devices offline, as sent from `resource`, if the sender has another device (devices.ts); the
   * commit stores them if it still has.
   */
  async ownCopies(messages: readonly StoredMessage[], except: string, resource: string): Promise<void> {
    const candidates = ownCopyCandidates(messages);
    const first = candidates[0];
    if (!first || (await this.presence.onlineElsewhere(first.appId, first.from, except))) return;
    // No other device: nothing to store, nothing written.
    if (!(await this.hasOtherDevice(first.appId, first.from, resource))) return;
    for (const message of candidates) message.ownCopy = resource;
  }

  /**
   * Multi-device: pushes each message to its sender's devices online now but the one that sent
   * it (`except`, a connection id; '' for none), live only: those offline now get the copy stored
   * with it (`ownCopies`). A message to oneself already reached every device. Never rejects.
   */
  async syncSender(messages: readonly StoredMessage[], except: string): Promise<void> {
    for (const message of messages) {
      if (message.chatType === 'chat' && message.to === message.from) continue;
      try {
        await this.presence.deliver(message.appId, [message.from], { ...messageFrame(message), device: except });
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
