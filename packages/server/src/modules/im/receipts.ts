/**
 * Receipts (Easemob's READ_ACK, DELIVER_ACK, CHANNEL_ACK) from any socket kind: forwarded live to
 * the user they concern as a `receipt` frame, which each socket kind renders its own way (the
 * msync gateway as the SDK's ack metas, the JSON socket as is); one for a user with no socket
 * reached is kept for their next socket (pending-events.ts).
 *
 *   read / delivered (one-to-one) ──▶ the message's sender (`to`)
 *   channel (a conversation read)  ──▶ the other user (`to`)
 *   read of a group message        ──▶ reader recorded (im_group_reads) ──▶ the message's sender,
 *                                      with the readers so far
 *
 * The hot send path is untouched: receipts are frames of their own, not messages. Read receipts
 * have `read_ack` callbacks (operation-events.ts): a group read's jobs are written with its reader
 * row, a one-to-one read's in a transaction of their own, before the receipt is forwarded.
 */
import type { ImReceiptFrame, ImReceiptKind } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { ImGroupsService } from './groups.js';
import type { IdGenerator } from './msg-id.js';
import type { ImApp, ImMessagesRepository } from './ports.js';
import type { OperationEvents, ReadAckEvent } from './operation-events.js';
import type { PendingEvents } from './pending-events.js';
import { validUsername } from './users.js';

/** Longest `ack_content` of a group read receipt. */
export const ACK_CONTENT_MAX = 1024;

export interface ReceiptInput {
  /** Who read or received. */
  from: string;
  kind: ImReceiptKind;
  chatType: 'chat' | 'groupchat';
  /** The user told (`chat`), or the group id. */
  to: string;
  msgId?: string;
  ackContent?: string;
}

export interface GroupReaders {
  msgId: string;
  total: number;
  readers: string[];
  /** The last reader of the page, when more may follow. */
  next?: string;
}

const bad = (detail: string) => new AppError('illegal_argument', { detail });
const MSG_ID = /^\d{1,19}$/;

export class ReceiptsService {
  constructor(
    private readonly messages: Pick<ImMessagesRepository, 'findMessage' | 'groupReaders' | 'countGroupReaders'>,
    private readonly groups: Pick<ImGroupsService, 'require' | 'isMember'>,
    private readonly events: Pick<PendingEvents, 'deliver'>,
    private readonly ops: OperationEvents,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** Checks and forwards a receipt; answers its id. */
  async send(app: ImApp, input: ReceiptInput): Promise<string> {
    const id = this.ids.next();
    const timestamp = this.clock.now();
    if (input.kind !== 'channel' && !MSG_ID.test(input.msgId ?? '')) throw bad('msg_id: expected the id of the message acknowledged');
    if (input.chatType === 'groupchat') return this.groupRead(app, input, id, timestamp);
    const to = validUsername(input.to, 'to');
    const frame: ImReceiptFrame = { op: 'receipt', id, kind: input.kind, from: input.from, to, chat_type: 'chat', ...(input.kind === 'channel' ? {} : { msg_id: input.msgId }), timestamp };
    if (to === input.from) return id;
    if (input.kind === 'read') await this.ops.emit([readAck(app, 'chat', input.from, to, id, input.msgId ?? '', timestamp)]);
    await this.events.deliver(app.id, [to], frame);
    return id;
  }

  private async groupRead(app: ImApp, input: ReceiptInput, id: string, timestamp: number): Promise<string> {
    if (input.kind !== 'read') throw bad('kind: group messages take read receipts only');
    if ((input.ackContent?.length ?? 0) > ACK_CONTENT_MAX) throw bad(`ack_content: at most ${ACK_CONTENT_MAX} characters`);
    const group = await this.groups.require(app, 'group', input.to);
    if (!(await this.groups.isMember(group, input.from))) throw new AppError('forbidden_op', { detail: `${input.from} is not a member of group ${group.id}` });
    const message = await this.messages.findMessage(app.id, input.msgId ?? '');
    if (!message || message.chatType !== 'groupchat' || message.to !== group.id) {
      throw new AppError('service_resource_not_found', { resource: `Service resource message ${input.msgId ?? ''}` });
    }
    // One's own message needs no receipt.
    if (message.from === input.from) return id;
    const event = readAck(app, 'groupchat', input.from, group.id, id, message.msgId, timestamp);
    await this.ops.write([event], (tx) => tx.im.addGroupRead(message, input.from, timestamp));
    const count = await this.messages.countGroupReaders(app.id, message.msgId);
    await this.events.deliver(app.id, [message.from], {
      op: 'receipt',
      id,
      kind: 'read',
      from: input.from,
      to: group.id,
      chat_type: 'groupchat',
      group_id: group.id,
      msg_id: message.msgId,
      read_count: count,
      ...(input.ackContent ? { ack_content: input.ackContent } : {}),
      timestamp,
    });
    return id;
  }

  /** Who read a group message (members, or the app token): a page of `limit` after `after`. */
  async readers(app: ImApp, groupId: string, msgId: string, viewer: string | undefined, after: string | undefined, limit: number): Promise<GroupReaders> {
    const group = await this.groups.require(app, 'group', groupId);
    if (viewer !== undefined && !(await this.groups.isMember(group, viewer))) throw new AppError('forbidden_op', { detail: `${viewer} is not a member of group ${group.id}` });
    const message = MSG_ID.test(msgId) ? await this.messages.findMessage(app.id, msgId) : undefined;
    if (!message || message.chatType !== 'groupchat' || message.to !== group.id) throw new AppError('service_resource_not_found', { resource: `Service resource message ${msgId}` });
    const rows = await this.messages.groupReaders(app.id, msgId, after, limit + 1);
    const page = rows.slice(0, limit).map((r) => r.username);
    const total = await this.messages.countGroupReaders(app.id, msgId);
    return { msgId, total, readers: page, ...(rows.length > limit ? { next: page[page.length - 1] } : {}) };
  }
}

function readAck(app: ImApp, chatType: ReadAckEvent['chatType'], from: string, to: string, msgId: string, ackMessageId: string, timestamp: number): ReadAckEvent {
  return { kind: 'read_ack', appId: app.id, appkey: app.appkey, timestamp, chatType, from, to, msgId, ackMessageId };
}
