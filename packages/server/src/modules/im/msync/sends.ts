/**
 * A meta a client sends (CommSyncUL.meta): a message (ns CHAT), a chat-room join or leave (ns MUC)
 * or a statistic (ns STATISTIC, taken without an answer). Messages go through the same send as
 * REST and the JSON socket; the answer carries Parley's msg_id as the server id.
 *
 * A message is handled in two steps so a connection can pipeline its sends: `handleMeta` resolves
 * once the message is checked and queued for commit (the connection then takes its next frame), and
 * `reply` settles with the answer once it is committed and delivered live. Joins, leaves and
 * statistics are handled completely before `handleMeta` resolves.
 */
import type { ImChatType } from '@parley/protocol';
import { AppError } from '../../../kernel/errors.js';
import { inspectJson } from '../../../kernel/input-checks.js';
import { normaliseBody } from '../bodies.js';
import type { ImModule } from '../index.js';
import type { ImApp } from '../ports.js';
import { decodeMessageBody, decodeMucBody, type MessageBodyIn, type MetaIn, type Status, type SyncDown } from './codec.js';
import { takeEdit } from './edit.js';
import { takeRecall } from './recall.js';
import { isReceipt, takeReceipt } from './receipts.js';
import { chatTypeOf, GROUP_DOMAIN, toParleyBody } from './contents.js';
import { fromKeyValues } from './key-values.js';
import { ErrorCode, MessageType, MucOperation, Namespace, RouteType } from './schema.js';
import { OK, roomStatus, sendStatus } from './statuses.js';

export interface Sender {
  app: ImApp;
  username: string;
  /** The sending connection's id: the user's other devices get the message too. */
  device?: string;
  /** The sending connection's resource: the copy stored for the user's devices offline is never handed to it. */
  resource?: string;
  /** Charges one message to the sender's send limits: the seconds to wait, 0 when it may go. */
  charge: () => Promise<number>;
  /** Charges one receipt, recall, edit or conversation read to the sender's limit of those. */
  chargeChange?: () => Promise<number>;
}

/** The traffic-limit status (the SDK's MESSAGE_CURRENT_LIMITING) when the sender's limit of changes is used up. */
async function overChangeLimit(sender: Sender, chatType: ImChatType): Promise<Status | undefined> {
  const wait = sender.chargeChange ? await sender.chargeChange() : 0;
  return wait > 0 ? sendStatus(new AppError('reach_limit', { retryAfter: wait }), chatType, '') : undefined;
}

const bad = (detail: string) => new AppError('illegal_argument', { detail });

/** The answer to a client meta (undefined when none is expected); it never rejects. */
export interface MetaOutcome {
  reply: Promise<SyncDown | undefined>;
}

const now = (reply: SyncDown | undefined): MetaOutcome => ({ reply: Promise.resolve(reply) });

/**
 * Handles a client meta; `previous` is the `reply` of the connection's previous message, which a
 * message's live delivery waits for (receivers get one sender's messages in order).
 */
export async function handleMeta(im: ImModule, sender: Sender, meta: MetaIn, previous?: Promise<unknown>): Promise<MetaOutcome> {
  switch (meta.ns) {
    case Namespace.STATISTIC:
      return now(undefined);
    case Namespace.CHAT:
      return sendMessage(im, sender, meta, previous);
    case Namespace.MUC:
      return now(await joinOrLeave(im, sender, meta));
    default:
      return now({ metaId: meta.id, status: { errorCode: ErrorCode.FAIL, reason: `namespace ${meta.ns} is not supported` } });
  }
}

async function sendMessage(im: ImModule, sender: Sender, meta: MetaIn, previous: Promise<unknown> | undefined): Promise<MetaOutcome> {
  const body = decodeMessageBody(meta.payload);
  const chatType = chatTypeOf(body);
  // A CHANNEL_ACK (conversation read) resets the conversation's unread count; a one-to-one one is
  // then forwarded to the peer as a receipt (a group's has nobody to tell).
  if (!chatType) {
    if (isChange(body)) {
      const limited = await overChangeLimit(sender, 'chat');
      if (limited) return now({ metaId: meta.id, status: limited });
    }
    if (body.type === MessageType.CHANNEL_ACK) {
      const read = await channelRead(im, sender, meta, body);
      if (read.status !== OK || (meta.to?.domain ?? body.to?.domain) === GROUP_DOMAIN) return now(read);
    }
    return now({ metaId: meta.id, status: await takeOther(im, sender, meta, body) });
  }
  const to = meta.to?.name ?? body.to?.name ?? '';
  const refused = (error: unknown): SyncDown => ({ metaId: meta.id, status: sendStatus(error, chatType as ImChatType, to) });
  try {
    const [content, ...others] = body.contents ?? [];
    if (!content || others.length > 0) throw bad('contents: expected exactly one content');
    const { type, ...fields } = toParleyBody(content);
    const parsed = normaliseBody(type, fields, 'body', 'body.type');
    const ext = fromKeyValues(body.ext?.length ? body.ext : meta.ext);
    const fault = inspectJson({ body: parsed, ext }, 'message');
    if (fault) throw bad(`${fault.field} ${fault.problem}`);
    const input = {
      from: sender.username,
      chatType,
      targets: [to],
      bodies: [parsed],
      ext,
      source: 'sdk' as const,
      requireMembership: true,
      charge: sender.charge,
      ...(sender.device === undefined ? {} : { device: sender.device, resource: sender.resource ?? '' }),
      ...(meta.routetype === RouteType.ONLINE ? { onlineOnly: true } : {}),
    };
    const queued = await im.messages.enqueue(sender.app, input, previous);
    const reply = queued.accepted.then(([accepted]): SyncDown => {
      if (!accepted) throw new AppError('internal_error');
      return { metaId: meta.id, serverId: accepted.msgId, status: OK, timestamp: accepted.timestamp };
    });
    return { reply: reply.catch(refused) };
  } catch (error) {
    return now(refused(error));
  }
}

/** A receipt (a CHANNEL_ACK included), a recall or an edit: charged to the sender's limit of changes. */
const isChange = (body: MessageBodyIn): boolean => isReceipt(body) || body.type === MessageType.CHANNEL_ACK || body.type === MessageType.RECALL || body.type === MessageType.EDIT;

/** A MessageBody that is no message: a receipt, a recall, an edit; anything else is taken and ignored. */
async function takeOther(im: ImModule, sender: Sender, meta: MetaIn, body: MessageBodyIn): Promise<Status> {
  if (isReceipt(body)) return takeReceipt(im, sender, meta, body);
  if (body.type === MessageType.RECALL) return takeRecall(im, sender, meta, body);
  if (body.type === MessageType.EDIT) return takeEdit(im, sender, body);
  return OK;
}

/** CHANNEL_ACK: everything in the conversation `to` names is read for the sender. */
async function channelRead(im: ImModule, sender: Sender, meta: MetaIn, body: MessageBodyIn): Promise<SyncDown> {
  // The SDK names the peer in the body and says whether it is a group in the meta's domain.
  const name = meta.to?.name ?? body.to?.name;
  if (!name) return { metaId: meta.id, status: OK };
  const group = (meta.to?.domain ?? body.to?.domain) === GROUP_DOMAIN;
  const ref = group ? { kind: 'group' as const, peer: name } : { kind: 'chat' as const, peer: name.toLowerCase() };
  try {
    await im.conversations.markRead(sender.app, sender.username, ref);
    return { metaId: meta.id, status: OK };
  } catch {
    return { metaId: meta.id, status: { errorCode: ErrorCode.FAIL, reason: 'the conversation could not be marked read' } };
  }
}

async function joinOrLeave(im: ImModule, sender: Sender, meta: MetaIn): Promise<SyncDown> {
  const muc = decodeMucBody(meta.payload);
  const room = muc.mucId?.name ?? '';
  const op = muc.operation;
  if (!muc.isChatroom || (op !== MucOperation.JOIN && op !== MucOperation.LEAVE)) {
    return { metaId: meta.id, status: { errorCode: ErrorCode.FAIL, reason: 'only chat-room join and leave are supported' } };
  }
  try {
    if (!/^\d{1,20}$/.test(room)) throw new AppError('service_resource_not_found', { resource: `Service resource chatroom ${room}` });
    if (op === MucOperation.JOIN) await im.groups.addMember(sender.app, 'chatroom', room, sender.username, sender.username);
    else await im.groups.removeMember(sender.app, 'chatroom', room, sender.username, sender.username);
    return { metaId: meta.id, status: OK };
  } catch (error) {
    return { metaId: meta.id, status: roomStatus(error, room) };
  }
}
