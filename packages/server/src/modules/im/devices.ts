/**
 * Multi-device sync for a user's devices that are offline at the moment: a message, recall or edit a
 * user makes on one device reaches their other devices online at once (live-deliveries.ts
 * `syncSender`, recalls.ts, edits.ts), and, when none of them is online, is kept for the next login
 * of another device of theirs:
 *
 *   send from device R ──other device online?──yes──▶ live copy only (the user took it)
 *                              └─no─▶ copy stored for the user (`im_offline`, `sent_from` R), in the
 *                                     send's own transaction, if they have a device other than R seen
 *                                     within DEVICE_TTL_MS (`im_devices`); nothing otherwise
 *
 * A device is a resource: the msync provision's (the SDK keeps it across logins), or the `resource`
 * a JSON socket names. A login records it (`loggedIn`). The copy is a stored message of the user like
 * any other: the next socket of theirs whose resource is not R takes it, in msg_id order with their
 * other stored messages, and it is then delivered; a socket of R never reads it (drains.ts). Recalls
 * and edits are kept the same way (pending-events.ts, `sent_from`).
 */
import type { ImServerFrame } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { PENDING_EVENTS_TTL_MS, type PendingEvents, type PendingFrame } from './pending-events.js';
import type { ImMessagesRepository, ImTransaction, StoredMessage } from './ports.js';
import type { Presence } from './presence.js';

/** A device not seen for this long is forgotten: 7 days, as kept events (Easemob's offline retention). */
export const DEVICE_TTL_MS = PENDING_EVENTS_TTL_MS;

/** Which of a send's messages get a copy stored for the sender's devices offline (not to oneself, not a room's, not online-only). */
export function ownCopyCandidates(messages: readonly StoredMessage[]): StoredMessage[] {
  return messages.filter((m) => m.chatType !== 'chatroom' && !m.onlineOnly && !(m.chatType === 'chat' && m.to === m.from));
}

export class Devices {
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
    try {
      await this.uow.run((tx) => tx.im.recordDevice(appId, username, resource, now, now - DEVICE_TTL_MS));
    } catch (error) {
      this.onError(error);
    }
  }

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
      if (!(await this.repo.hasOtherDevice(appId, username, where.resource, this.clock.now() - DEVICE_TTL_MS))) return;
      await this.events.keep(appId, [username], frame, where.resource);
    } catch (error) {
      this.onError(error);
    }
  }
}
