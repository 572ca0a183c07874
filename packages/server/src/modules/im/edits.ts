/**
 * Edit of a sent message (Easemob's `modifyMessage`, msync EDIT): the sender replaces the body of
 * their own text or custom message (and its `ext` when given), at most MAX_EDITS times. The new
 * body goes through the same size and sensitive-word checks as a send, then the app's pre-send
 * review (pre-send.ts: approved, refused or rewritten, before anything is written); the stored message is
 * updated (a receiver who has not fetched it yet gets the new content), then the receivers and the
 * sender's other devices online get an `edit` frame, and those who had it and are offline get it on
 * their next socket (pending-events.ts), as do the sender's other devices when none was online
 * (devices.ts).
 */
import type { ImEditFrame, ImMessageBody } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { assertMessageSize } from './messages.js';
import type { ModerationService } from './moderation.js';
import type { IdGenerator } from './msg-id.js';
import type { PendingEvents } from './pending-events.js';
import type { ImApp, ImGroupsRepository, ImMessagesRepository, ImTransaction } from './ports.js';
import { noPreSend, type PreSendHook } from './pre-send.js';
import type { Devices } from './devices.js';
import type { Presence } from './presence.js';
import { receiversOf } from './receivers.js';

export const MAX_EDITS = 10;
/** Refusals, in the `detail` of their error (the msync gateway maps them to the SDK's errors). */
export const EDIT_NOT_SENDER = 'not the sender of the message';
export const EDIT_LIMIT = 'edit limit reached';
export const EDIT_FORMAT = 'only the body of a text or custom message can be edited, with one of the same type';

export interface EditInput {
  msgId: string;
  by: string;
  body: ImMessageBody;
  /** Replaces the message's ext when given. */
  ext?: Record<string, unknown>;
  /** The connection editing (it is not told). */
  device?: string;
  /** The resource of the device editing: its later logins are not told either. */
  resource?: string;
}

const MSG_ID = /^\d{1,19}$/;
const EDITABLE = new Set(['txt', 'custom']);

export class EditsService {
  constructor(
    private readonly messages: Pick<ImMessagesRepository, 'findMessage'>,
    private readonly groups: ImGroupsRepository,
    private readonly moderation: Pick<ModerationService, 'assertAllowed'>,
    private readonly uow: UnitOfWork<ImTransaction>,
    private readonly presence: Pick<Presence, 'deliver'>,
    private readonly events: Pick<PendingEvents, 'deliver'>,
    private readonly devices: Pick<Devices, 'syncChange'>,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    /** The app's pre-send review (callbacks module), after every check and before the write. */
    private readonly preSend: Pick<PreSendHook, 'reviewEdit'> = noPreSend,
  ) {}

  /** Edits a message; answers the edit frame its receivers get. */
  async edit(app: ImApp, input: EditInput): Promise<ImEditFrame> {
    const message = MSG_ID.test(input.msgId) ? await this.messages.findMessage(app.id, input.msgId) : undefined;
    if (!message) throw new AppError('service_resource_not_found', { resource: `Service resource message ${input.msgId}` });
    if (message.from !== input.by) throw new AppError('forbidden_op', { detail: EDIT_NOT_SENDER });
    const before = message.payload.bodies[0];
    if (!before || !EDITABLE.has(before.type) || before.type !== input.body.type) throw new AppError('illegal_argument', { detail: EDIT_FORMAT });
    const proposed = { bodies: [input.body], ext: input.ext ?? message.payload.ext };
    assertMessageSize(proposed);
    await this.moderation.assertAllowed(app, proposed.bodies);
    const id = this.ids.next();
    const editTime = this.clock.now();
    const payload = await this.preSend.reviewEdit(app, { message: { ...message, payload: proposed }, editId: id, editTime });
    const count = await this.uow.run((tx) => tx.im.editMessage(message, payload, MAX_EDITS));
    if (count === undefined) throw new AppError('forbidden_op', { detail: EDIT_LIMIT });
    const frame: ImEditFrame = {
      op: 'edit',
      id,
      msg_id: message.msgId,
      from: message.from,
      to: message.to,
      chat_type: message.chatType,
      ...(message.chatType === 'chat' ? {} : { group_id: message.to }),
      payload,
      count,
      edit_time: editTime,
      timestamp: message.timestamp,
    };
    const others = (await receiversOf(this.groups, message)).filter((u) => u !== message.from);
    if (message.chatType === 'chatroom') await this.presence.deliver(app.id, others, frame);
    else await this.events.deliver(app.id, others, frame);
    const where = { device: input.device ?? '', resource: input.resource ?? '' };
    if (message.chatType === 'chatroom') await this.presence.deliver(app.id, [message.from], { ...frame, device: where.device });
    else await this.devices.syncChange(app.id, message.from, frame, where, true);
    return frame;
  }
}
