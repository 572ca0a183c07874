/**
 * Multi-device sync for a user's devices that are offline at the moment: a message, recall or edit a
 * user makes on one device reaches their other devices online at once (live-deliveries.ts
 * `syncSender`, recalls.ts, edits.ts), and, when none of them is online, is kept for the next login
 * of another device of theirs:
 *
 *   send from device R ──other device online?──yes──▶ live copy only (the user took it)
 *                              └─no─▶ another device than R seen within DEVICE_TTL_MS (`im_devices`,
 *                                     asked at most every DEVICE_CHECK_MS per user)? no: nothing more
 *                                     └─yes─▶ copy stored for the user (`im_offline`, `sent_from` R) in
 *                                             the send's own transaction, which asks again
 *
 * A device is a resource: the msync provision's (the SDK keeps it across logins), or the `resource`
 * a JSON socket names. A login records it (`loggedIn`). The copy is a stored message of the user,
 * read in msg_id order with their other stored messages by each socket of theirs whose resource is
 * not R; a socket of R never reads it (drains.ts). Each device that acknowledges it takes it
 * (`im_offline_takes`) and does not read it again; it is delivered once every device of the user
 * seen within DEVICE_TTL_MS but R took it. Recalls and edits are kept and taken the same way
 * (pending-events.ts, `sent_from`, `im_pending_event_takes`).
 */
import type { ImServerFrame } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { PENDING_EVENTS_TTL_MS, type PendingEvents, type PendingFrame } from './pending-events.js';
import type { ImMessagesRepository, ImTransaction, StoredMessage } from './ports.js';
import type { Presence } from './presence.js';

/** A device not seen for this long is forgotten: 7 days, as kept events (Easemob's offline retention). */
export const DEVICE_TTL_MS = PENDING_EVENTS_TTL_MS;

/**
 * How long a send trusts the last answer to "has the sender another device?" for that user: a
 * sender with no other device costs one read per this period, never a write. A login recorded here
 * ends it at once; one on another instance is seen within it (or live: that device is online).
 */
export const DEVICE_CHECK_MS = 5_000;
/** Users whose answer is remembered, at most (past it, all are forgotten). */
const CHECKS_MAX = 100_000;

/** Which of a send's messages get a copy stored for the sender's devices offline (not to oneself, not a room's, not online-only). */
export function ownCopyCandidates(messages: readonly StoredMessage[]): StoredMessage[] {
  return messages.filter((m) => m.chatType !== 'chatroom' && !m.onlineOnly && !(m.chatType === 'chat' && m.to === m.from));
}

export class Devices {
  /** Per user (`appId NUL username`): the resource asked about, the answer, and until when it holds. */
  private readonly checks = new Map<string, { resource: string; others: boolean; until: number }>();

  constructor(
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly repo: Pick<ImMessagesRepository, 'hasOtherDevice'>,
    private readonly presence: Pick<Presence, 'deliver' | 'onlineElsewhere'>,
    private readonly events: Pick<PendingEvents, 'keep'>,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** A device of the user logged in: recorded (its devices unseen for DEVICE_TTL_MS are forgotten). Never rejects. */
  async loggedIn(appId: string, username: string, resource: string): Promise<void> {
    const now = this.clock.now();
    const key = `${appId}\u0000${username}`;
    // Forgotten before the write (a send meanwhile reads afresh) and again after it (a send during
    // the write may have remembered the answer from before the device was recorded).
    this.checks.delete(key);
    try {
      await this.uow.run((tx) => tx.im.recordDevice(appId, username, resource, now, now - DEVICE_TTL_MS));
      this.checks.delete(key);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Whether the user has a device other than `resource` (seen within DEVICE_TTL_MS); the answer is trusted for DEVICE_CHECK_MS. */
  readonly hasOther = async (appId: string, username: string, resource: string): Promise<boolean> => {
    const key = `${appId}\u0000${username}`;
    const now = this.clock.now();
    const known = this.checks.get(key);
    if (known && known.resource === resource && known.until > now) return known.others;
    const others = await this.repo.hasOtherDevice(appId, username, resource, now - DEVICE_TTL_MS);
    if (this.checks.size >= CHECKS_MAX) this.checks.clear();
    this.checks.set(key, { resource, others, until: now + DEVICE_CHECK_MS });
    return others;
  };

  /**
   * A recall or edit by `username` on the connection `device` (resource `resource`; '' for neither):
   * pushed to their other devices online; kept for the next login of another device when none is
   * online and they have one (`keep` false: the change needs no telling, e.g. a recalled message
   * their devices never took). Never rejects.
   */
  async syncChange(appId: string, username: string, frame: PendingFrame, where: { device: string; resource: string }, keep: boolean): Promise<void> {
    try {
      await this.presence.deliver(appId, [username], { ...frame, device: where.device } as ImServerFrame);
      if (!keep || (await this.presence.onlineElsewhere(appId, username, where.device))) return;
      if (!(await this.hasOther(appId, username, where.resource))) return;
      await this.events.keep(appId, [username], frame, where.resource);
    } catch (error) {
      this.onError(error);
    }
  }
}
