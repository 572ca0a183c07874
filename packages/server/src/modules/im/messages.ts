/**
 * Accepting a message (contract 4.3), for REST and socket senders alike.
 *
 * The message rows and their `im.fanout` job are written in ONE transaction before the caller
 * answers (commit.ts), so a crash after the answer loses nothing: the job runs after a restart.
 * Moderation, the pre-send review (pre-send.ts) and every check happen before that transaction;
 * a rejected message leaves no trace.
 */
import { IM_LIMITS } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { MessageCommitter } from './commit.js';
import type { ContactsService } from './contacts.js';
import type { ImGroupsService } from './groups.js';
import type { LiveDeliveries } from './live-deliveries.js';
import type { ImMetrics } from './metrics.js';
import type { ModerationService } from './moderation.js';
import type { IdGenerator } from './msg-id.js';
import type { ImApp, StoredMessage } from './ports.js';
import type { MessageBody, MessageChatType, MessageSource } from './post-send.js';
import { noPreSend, type PreSendHook } from './pre-send.js';
import { validUsername, type ImUsersService } from './users.js';

const noop = (): void => undefined;

/**
 * One size limit for every protocol (REST, JSON socket, msync): the message as it is stored and
 * called back, `{bodies, ext}` as JSON, at most IM_LIMITS.messageBytes; 400 `message_send_error`.
 */
export function assertMessageSize(input: Pick<SendInput, 'bodies' | 'ext'>): void {
  const bytes = Buffer.byteLength(JSON.stringify({ bodies: input.bodies, ext: input.ext }), 'utf8');
  if (bytes > IM_LIMITS.messageBytes) {
    throw new AppError('message_send_error', { detail: `message is too large: ${bytes} bytes, at most ${IM_LIMITS.messageBytes}` });
  }
}

export interface SendInput {
  from: string;
  chatType: MessageChatType;
  /** User names (`chat`) or group / chat-room ids. */
  targets: string[];
  bodies: MessageBody[];
  ext: Record<string, unknown>;
  source: MessageSource;
  /** Socket senders must belong to the group or room they write to. */
  requireMembership: boolean;
  /**
   * Charges the message to its sender's rate limits (socket senders pay per message; REST per
   * request, before this): the seconds to wait, 0 when it may go. Run after the size check, so a
   * refused message costs nothing.
   */
  charge?: () => Promise<number>;
  /**
   * Multi-device: the message also goes, live, to the sender's other connected devices: every one
   * but the connection with this id (`''`: every one, a REST `sync_device`); when none is online, it
   * is stored for their other devices (devices.ts). Absent: none.
   */
  device?: string;
  /** The sending device's resource (msync, a named JSON socket): the sender's own copy is never handed to it. */
  resource?: string;
  /** For the receivers online now only (`deliverOnlineOnly`, msync `routetype` ONLINE): never stored offline. */
  onlineOnly?: boolean;
}

export interface Accepted {
  target: string;
  msgId: string;
  timestamp: number;
}

export class ImMessagesService {
  constructor(
    private readonly committer: MessageCommitter,
    private readonly users: ImUsersService,
    private readonly groups: ImGroupsService,
    private readonly moderation: ModerationService,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    /** Decides who gets messages live before they commit, and pushes them after, before the caller answers. */
    private readonly live: Pick<LiveDeliveries, 'decide' | 'ownCopies' | 'deliver' | 'syncSender'>,
    private readonly metrics: Pick<ImMetrics, 'sent'>,
    /** The app's pre-send review (callbacks module), after every check and before the commit. */
    private readonly preSend: PreSendHook = noPreSend,
    /** Block lists: a one-to-one message to someone who blocked its sender is refused. */
    private readonly blocks?: Pick<ContactsService, 'blockersOf'>,
  ) {}

  async send(app: ImApp, input: SendInput): Promise<Accepted[]> {
    return (await this.enqueue(app, input)).accepted;
  }

  /**
   * `send` in two steps, for a socket that pipelines its sends: resolves once the messages are
   * checked, have their ids and are queued for commit (a later `enqueue` commits after them), with
   * `accepted` settling as `send` would. `after` (the sender's previous send) is awaited before
   * the live delivery, so one sender's messages reach receivers in order whatever the engine's
   * commit concurrency. A rejection of the checks rejects the returned promise itself.
   */
  async enqueue(app: ImApp, input: SendInput, after?: Promise<unknown>): Promise<{ accepted: Promise<Accepted[]> }> {
    assertMessageSize(input);
    const wait = input.charge ? await input.charge() : 0;
    if (wait > 0) throw new AppError('reach_limit', { retryAfter: wait });
    await this.moderation.assertAllowed(app, input.bodies);
    const from = validUsername(input.from, 'from');
    const targets = await this.resolveTargets(app, input, from);

    const timestamp = this.clock.now();
    const proposed: StoredMessage[] = targets.map((to) => ({
      appId: app.id,
      msgId: this.ids.next(),
      from,
      to,
      chatType: input.chatType,
      source: input.source,
      timestamp,
      payload: { bodies: input.bodies, ext: input.ext },
      ...(input.onlineOnly ? { onlineOnly: true } : {}),
    }));
    const messages = [...(await this.preSend.review(app, proposed))];
    await this.live.decide(messages);
    if (input.device !== undefined) await this.live.ownCopies(messages, input.device, input.resource ?? '');
    const committed = this.committer.commit(messages);
    return { accepted: this.deliver(committed, messages, input, after) };
  }

  private async deliver(committed: Promise<void>, messages: StoredMessage[], input: SendInput, after: Promise<unknown> | undefined): Promise<Accepted[]> {
    await committed;
    this.metrics.sent(input.chatType, input.bodies[0]?.type, messages.length);
    if (after) await after.then(noop, noop);
    await this.live.deliver(messages);
    if (input.device !== undefined) await this.live.syncSender(messages, input.device);
    return messages.map((m) => ({ target: m.to, msgId: m.msgId, timestamp: m.timestamp }));
  }

  private async resolveTargets(app: ImApp, input: SendInput, from: string): Promise<string[]> {
    if (input.chatType === 'chat') {
      const names = [...new Set(input.targets.map((t, i) => validUsername(t, `to[${i}]`)))];
      const missing = await this.users.missing(app, names);
      if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${missing.join(', ')}` });
      const blockers = this.blocks ? await this.blocks.blockersOf(app, from, names) : [];
      // `rule` tells a socket protocol this refusal from others (msync answers "blocked").
      if (blockers.length > 0) throw new AppError('forbidden_op', { detail: `${blockers.join(', ')} blocked ${from}; the message was not sent`, rule: 'blocked' });
      return names;
    }
    const kind = input.chatType === 'groupchat' ? 'group' : 'chatroom';
    const ids = [...new Set(input.targets)];
    for (const id of ids) {
      if (!/^\d{1,20}$/.test(id)) throw new AppError('illegal_argument', { detail: `to: "${id}" is not a ${kind} id` });
      const group = await this.groups.require(app, kind, id);
      if (input.requireMembership && !(await this.groups.isMember(group, from))) {
        throw new AppError('forbidden_op', { detail: `${from} is not a member of ${kind} ${id}` });
      }
      await this.groups.roles.assertMaySend(group, from);
    }
    return ids;
  }
}
