/**
 * Recall of a message (Easemob's RECALL, `POST /messages/msg_recall`): the message is removed (its
 * row, its offline rows, its group readers) in one transaction, then every receiver and the
 * sender's other devices online get a `recall` frame, live; receivers who had the message and are
 * offline get it on their next socket (pending-events.ts), and so do the sender's other devices when
 * none was online (devices.ts). A receiver whose stored copy was not
 * delivered yet never gets the message at all (its offline row is gone), nor the recall.
 *
 *   user:      own message only (`forbidden_op` "not the sender"), within PARLEY_IM_RECALL_SECONDS
 *              of its sending (`forbidden_op` "exceed recall time limit"), by the injected clock
 *   app admin: any message, any time
 *   unknown message, or one already recalled: `service_resource_not_found`
 *
 * The removal is written with the callback jobs of its `recall` event (operation-events.ts), for
 * every entry point (msync RECALL, the JSON socket, REST msg_recall).
 */
import type { ImRecallFrame } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { IdGenerator } from './msg-id.js';
import type { ImApp, ImGroupsRepository, ImMessagesRepository, StoredMessage } from './ports.js';
import type { OperationEvents, RecallEvent } from './operation-events.js';
import type { PendingEvents } from './pending-events.js';
import type { Devices } from './devices.js';
import type { Presence } from './presence.js';
import { receiversOf } from './receivers.js';

/** Why a recall was refused, in the `detail` of its `forbidden_op` (the msync gateway maps them to the SDK's errors). */
export const RECALL_TOO_LATE = 'exceed recall time limit';
export const RECALL_NOT_SENDER = 'not the sender of the message';

export interface RecallInput {
  msgId: string;
  /** The user recalling (their own message, within the window); absent: the app admin. */
  by?: string;
  /** Who the receivers are told recalled it when the app admin does (Easemob's `from`, default `admin`). */
  as?: string;
  /** The receiver the message must have (Easemob's REST `to`). */
  to?: string;
  /** Easemob's `recallMessageExtensionInfo`, given to the receivers. */
  ext?: string;
  /** The connection recalling (it is not told); absent: every device of the sender is. */
  device?: string;
  /** The resource of the device recalling: its later logins are not told either. */
  resource?: string;
}

const MSG_ID = /^\d{1,19}$/;

export class RecallsService {
  constructor(
    private readonly messages: Pick<ImMessagesRepository, 'findMessage'>,
    private readonly groups: ImGroupsRepository,
    private readonly presence: Pick<Presence, 'deliver'>,
    private readonly events: Pick<PendingEvents, 'deliver'>,
    private readonly devices: Pick<Devices, 'syncChange'>,
    private readonly ops: OperationEvents,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly windowSeconds: number,
  ) {}

  /** Recalls a message; answers it as it was. */
  async recall(app: ImApp, input: RecallInput): Promise<StoredMessage> {
    const message = MSG_ID.test(input.msgId) ? await this.messages.findMessage(app.id, input.msgId) : undefined;
    const notFound = () => new AppError('service_resource_not_found', { resource: `Service resource message ${input.msgId}` });
    if (!message || (input.to !== undefined && input.to !== message.to)) throw notFound();
    if (input.by !== undefined) {
      if (message.from !== input.by) throw new AppError('forbidden_op', { detail: RECALL_NOT_SENDER });
      if (this.clock.now() - message.timestamp > this.windowSeconds * 1000) throw new AppError('forbidden_op', { detail: RECALL_TOO_LATE });
    }
    const receivers = await receiversOf(this.groups, message);
    const id = this.ids.next();
    const timestamp = this.clock.now();
    const event: RecallEvent = {
      kind: 'recall',
      appId: app.id,
      appkey: app.appkey,
      timestamp,
      msgId: id,
      recalled: { msgId: message.msgId, from: message.from, to: message.to, chatType: message.chatType },
    };
    const neverHad = await this.ops.write([event], (tx) => tx.im.removeMessage(message), (removed) => removed !== undefined);
    if (!neverHad) throw notFound();
    const frame: ImRecallFrame = {
      op: 'recall',
      id,
      msg_id: message.msgId,
      from: input.by ?? input.as ?? 'admin',
      to: message.to,
      chat_type: message.chatType,
      ...(message.chatType === 'chat' ? {} : { group_id: message.to }),
      ...(input.ext ? { ext: input.ext } : {}),
      timestamp,
    };
    const others = receivers.filter((u) => u !== message.from);
    // Chat-room messages are never stored, so nobody offline needs their recall either.
    if (message.chatType === 'chatroom') await this.presence.deliver(app.id, others, frame);
    else await this.events.deliver(app.id, others, frame, (u) => !neverHad.includes(u));
    // The sender's other devices: live, or kept for a later login unless their copy was still stored (gone with it).
    const where = { device: input.device ?? '', resource: input.resource ?? '' };
    if (message.chatType === 'chatroom') await this.presence.deliver(app.id, [message.from], { ...frame, device: where.device });
    else await this.devices.syncChange(app.id, message.from, frame, where, !neverHad.includes(message.from));
    return message;
  }
}
