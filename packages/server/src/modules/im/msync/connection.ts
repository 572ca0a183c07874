/**
 * One msync connection: the protocol adapter between the SDK's frames and the IM module. Logins,
 * sends, joins and deliveries go through the same services as the REST API and the JSON socket
 * (same ids, moderation, post-send callbacks with `source: "sdk"`, offline store); this class only
 * translates. The WebSocket I/O (http/routes/im/msync.ts) feeds it frames one at a time, in order.
 */
import type { ImServerFrame } from '@parley/protocol';
import type { Clock } from '../../../kernel/clock.js';
import { AppError, isAppError } from '../../../kernel/errors.js';
import { uuid } from '../../../kernel/ids.js';
import type { Feed } from '../drains.js';
import type { ImModule } from '../index.js';
import type { ImApp, StoredMessage } from '../ports.js';
import type { ImConnection } from '../presence.js';
import type { SocketLease } from '../socket-limits.js';
import { osName, type LoginInfo, type UserSession } from '../user-status.js';
import { foldUsername } from '../users.js';
import { CLOSE_SLOW_CONSUMER } from '../socket-limits.js';
import { decodeFrame, decodeProvision, decodeSyncUp, encodeLogoutReply, encodeNotice, encodeProvisionReply, encodeSyncDown, encodeUnreadReply, FrameError, type Jid, type MetaOut, type MsyncFrame } from './codec.js';
import { editMeta } from './edit.js';
import { recallMeta } from './recall.js';
import { receiptMeta } from './receipts.js';
import { deliveredOf, queueOf, toMeta, type Delivered } from './contents.js';
import { Outbox, PULL_BATCH, type Origin } from './outbox.js';
import { mucMeta, mucQueue } from './muc-events.js';
import { rosterMeta, rosterQueue } from './roster.js';
import { handleMeta } from './sends.js';
import { CLOSE, onClosed, onFrame, onProvisioned, onUndecodable, type SessionState } from './session.js';
import { OK, refusalStatus, type Refusal } from './statuses.js';

/**
 * Metas one connection holds for its client at most before it counts as a slow consumer (its
 * bytes are bounded too, by the socket buffer bound every IM socket has).
 */
export const OUTBOX_LIMIT = 2_000;

/**
 * Sends of one connection queued for commit and not answered yet, at most; the next frame waits
 * for the oldest beyond it. Sends are pipelined: a message is checked and queued for commit in
 * frame order, and the connection takes its next frame without waiting for the commit, so one
 * busy sender's messages share the group commit (commit.ts) instead of one transaction each.
 */
export const SENDS_IN_FLIGHT = 64;

/** The socket under a connection, as the I/O layer gives it. */
export interface MsyncSocket {
  send(bytes: Uint8Array): void;
  close(code: number, reason: string): void;
  /** Registers the connection with the socket limits once its user is known (undefined: refused). */
  admit(appId: string, username: string, onDrop: (code: number) => void): SocketLease | undefined;
  /** The per-IP count of failed logins at an app (`org#app`), shared with the REST and JSON-socket token checks. */
  failures: { blocked(appKey: string): Promise<boolean>; note(appKey: string): void };
  /** Charges one message of the user to their send limits: the seconds to wait, 0 when it may go. */
  charge(appKey: string, username: string): Promise<number>;
  /** Charges one receipt, recall or edit of the user to its own limit: the seconds to wait, 0 when it may go. */
  chargeChange(appKey: string, username: string): Promise<number>;
  /** The client's address (the `ip` of its `userStatus` callbacks). */
  readonly ip: string;
}

interface LoggedIn {
  app: ImApp;
  appKey: string;
  username: string;
  resource: string;
  lease: SocketLease;
  connection: ImConnection;
  /** The connection's id: the user's other devices get its sends (sends.ts). */
  device: string;
  /** Charges one message to the user's send limits (sends.ts). */
  charge: () => Promise<number>;
  /** Charges one receipt, recall or edit to the user's limit of those (sends.ts). */
  chargeChange: () => Promise<number>;
  /** Its login, and its logout when it closes (`userStatus` callbacks). */
  session: UserSession;
}

export class MsyncConnection {
  private state: SessionState = 'awaiting-provision';
  /** When the socket opened (the provision timeout counts from it). */
  readonly openedAt: number;
  /** When the last frame arrived (the idle timeout counts from it). */
  lastFrameAt: number;
  private login: LoggedIn | undefined;
  private readonly outbox: Outbox;
  /** The drain of the user's stored messages into this connection; the first UNREAD answer waits for its start. */
  private feed: Feed | undefined;
  /** Stored messages are held silently until the first UNREAD answer lists them. */
  private unreadAnswered = false;
  /** Live messages refused by a full outbox (the connection is dropped): stored again on close. */
  private readonly overflowed: string[] = [];
  /** Tells the drain which stored messages the client acknowledged. */
  private acknowledgeStored: ((msgIds: string[]) => void) | undefined;
  /** Tells the kept events which of them the client acknowledged. */
  private acknowledgeKept: ((ids: string[]) => void) | undefined;
  /** Drains waiting for the client to pull (room in the outbox), woken by each pull and by the close. */
  private roomWaiters: Array<() => void> = [];
  /** Answers of the sends queued for commit, oldest first; each settles once written. */
  private readonly inFlight: Array<Promise<void>> = [];
  /** The answer of the last message sent: the next one's live delivery waits for it. */
  private lastReply: Promise<unknown> | undefined;

  constructor(
    private readonly im: ImModule,
    private readonly clock: Clock,
    private readonly socket: MsyncSocket,
  ) {
    this.openedAt = clock.now();
    this.lastFrameAt = this.openedAt;
    this.outbox = new Outbox({ count: OUTBOX_LIMIT, bytes: im.sockets.bufferBytes });
  }

  /** Handles one inbound binary frame. Never throws. */
  async handle(bytes: Uint8Array): Promise<void> {
    if (this.state === 'closed') return;
    this.lastFrameAt = this.clock.now();
    let frame: MsyncFrame;
    try {
      frame = decodeFrame(bytes);
    } catch (error) {
      this.apply(onUndecodable(this.state, (error as Error).message));
      return;
    }
    const next = onFrame(this.state, frame.command);
    this.state = next.state;
    try {
      switch (next.step.kind) {
        case 'provision':
          return await this.provision(frame);
        case 'unread':
          return await this.unread();
        case 'sync':
          return await this.sync(frame);
        case 'logout':
          return await this.logout();
        case 'close':
          return this.closeWith(next.step.code, next.step.reason);
        case 'ignore':
          return;
      }
    } catch (error) {
      // A frame of the right shape whose content does not decode (a payload, a body).
      if (error instanceof FrameError) return this.closeWith(CLOSE.badFrame, error.message.slice(0, 100));
      throw error;
    }
  }

  /** The socket closed (by either side). */
  closedBySocket(): void {
    this.state = onClosed();
    this.feed?.close();
    this.wakeRoomWaiters();
    const login = this.login;
    if (!login) return;
    login.lease.release();
    this.im.presence.remove(login.app.id, login.username, login.connection);
    void login.session.closed();
    // Live messages the client never acknowledged are stored for the user again; stored ones still are.
    const unacknowledged = [...this.outbox.takeUnacknowledged(), ...this.overflowed.splice(0)];
    void this.im.offline.giveBack(login.app.id, login.username, unacknowledged).catch(() => undefined);
  }

  /** Handling a frame failed unexpectedly: the connection closes, nothing else is affected. */
  failed(): void {
    this.closeWith(CLOSE.internal, 'internal error');
  }

  /** Logged in: past the provision, so the idle timeout applies rather than the provision timeout. */
  get loggedIn(): boolean {
    return this.login !== undefined;
  }

  /** No frame for too long, or no login in time: closed by the sweep. */
  idleClose(): void {
    this.closeWith(CLOSE.idle, this.login ? 'idle timeout' : 'provision timeout');
  }

  private apply(next: { state: SessionState; step: { kind: string; code?: number; reason?: string } }): void {
    this.state = next.state;
    if (next.step.kind === 'close') this.closeWith(next.step.code ?? CLOSE.protocol, next.step.reason ?? '');
  }

  /** Writes a frame; a logged-in socket over its outbound buffer bound is dropped instead. */
  private write(bytes: Uint8Array): void {
    if (this.login && !this.login.lease.admitFrame()) return;
    this.socket.send(bytes);
  }

  private closeWith(code: number, reason: string): void {
    this.state = onClosed();
    this.socket.close(code, reason);
  }

  private refuse(refusal: Refusal): void {
    this.state = onProvisioned(this.state, false);
    this.socket.send(encodeProvisionReply(refusalStatus(refusal)));
    this.socket.close(CLOSE.refused, refusal);
  }

  private async provision(frame: MsyncFrame): Promise<void> {
    const provision = decodeProvision(frame.payload);
    const appKey = frame.guid?.appKey ?? '';
    const name = foldUsername(frame.guid?.name ?? '');
    const token = (frame.auth ?? '').replace(/^\$t\$/, '');
    const [org, appName, extra] = appKey.split('#');
    if (!org || !appName || extra !== undefined || !name || !token) return this.refuse('bad_request');
    let app: ImApp;
    try {
      app = await this.im.apps.requireApp(org, appName);
    } catch (error) {
      if (isAppError(error) && error.code === 'organization_application_not_found') return this.refuse('unknown_app');
      throw error;
    }
    if (await this.socket.failures.blocked(app.appkey)) return this.refuse('too_many_failures');
    const holder = await this.im.apps.userOfToken(app, token);
    const failed = (refusal: Refusal) => {
      this.socket.failures.note(app.appkey);
      this.refuse(refusal);
    };
    if (holder === 'invalid') return failed('bad_token');
    if (holder === 'expired') return failed('expired_token');
    if ((await this.im.users.missing(app, [name])).length > 0) return failed('unknown_user');
    if (holder.username !== name) return failed('other_user');
    this.goLive(app, appKey, name, { os: osName(provision.osType), ip: this.socket.ip, resource: provision.resource || `msync_${uuid()}`, version: provision.version ?? '' }, Boolean(provision.resource));
  }

  /** `named`: the client named its resource (the SDK keeps it across logins): a device, given the user's own sends made while away. */
  private goLive(app: ImApp, appKey: string, username: string, info: LoginInfo, named: boolean): void {
    const connection = this.presenceConnection(info.resource);
    const lease = this.socket.admit(app.id, username, (code) => {
      this.login?.session.dropped(code);
      this.im.presence.remove(app.id, username, connection);
    });
    if (!lease) {
      this.state = onClosed();
      return;
    }
    const { resource } = info;
    const session = this.im.statuses.login(app, username, info);
    this.login = { app, appKey, username, resource, lease, connection, device: connection.id, charge: () => this.socket.charge(appKey, username), chargeChange: () => this.socket.chargeChange(appKey, username), session };
    this.state = onProvisioned(this.state, true);
    this.socket.send(encodeProvisionReply(OK, resource));
    this.im.presence.add(app.id, username, connection);
    if (named) void this.im.devices.loggedIn(app.id, username, resource);
    // Stored messages first (the first held for the first UNREAD answer), then online; then the events kept meanwhile.
    this.feed = this.im.drains.connect(app.id, username, connection, lease);
    void this.feed.ready.then(() => (this.state === 'closed' || !lease.active ? undefined : this.im.events.handOver(app.id, username, connection)));
  }

  /** The connection as presence sees it: message frames become metas in the outbox. */
  private presenceConnection(resource: string): ImConnection {
    const id = uuid();
    return {
      id,
      resource,
      send: (frame) => {
        const login = this.login;
        if (!login || ((frame.op === 'message' || frame.op === 'recall' || frame.op === 'edit') && frame.device === id)) return;
        const event = eventMeta(login, frame, this.im.ids);
        if (event) return void this.place(event, 'event');
        if (frame.op !== 'message') return;
        // Own messages from another device, chat-room and online-only messages are never given back to the store.
        const once = frame.chat_type === 'chatroom' || frame.online_only === true || frame.device !== undefined;
        this.hold(deliveredOf(frame), true, once ? 'room' : 'live');
      },
      room: () => this.roomForStored(),
      sendStored: (messages, acknowledge) => this.takeStored(messages, acknowledge),
      sendKept: (events, acknowledge) => this.takeKept(events, acknowledge),
      close: (code, reason) => this.login?.lease.drop(code, reason),
    };
  }

  /** Puts a message in the outbox (NOTICE when its queue is not being pulled); false when it overflowed. */
  private hold(message: Delivered, notify: boolean, origin: Origin): boolean {
    const login = this.login;
    if (!login) return false;
    const placed = this.place({ queue: queueOf(login.appKey, message, login.username), meta: toMeta(login.appKey, message) }, origin, notify);
    if (!placed && origin === 'live') this.overflowed.push(message.msgId);
    return placed;
  }

  /**
   * Puts a meta in the outbox (NOTICE when its queue is not being pulled); false when it overflowed
   * or the connection is going. Events (receipts, recalls, edits, contact events, group notices) are
   * handed out once (a pull that does not acknowledge them does not get them again: the SDK would
   * raise the event twice); `ref` is a kept event's id in the store.
   */
  private place({ queue, meta }: { queue: Jid; meta: MetaOut }, origin: Origin, notify = true, ref?: string): boolean {
    const login = this.login;
    if (!login || !login.lease.active) return false;
    const outcome = this.outbox.add(queue, meta, notify, origin, ref);
    if (outcome === 'notice') this.write(encodeNotice(queue));
    if (outcome !== 'overflow') return true;
    login.lease.drop(CLOSE_SLOW_CONSUMER, 'slow consumer: too many messages not pulled');
    return false;
  }

  /** Stored messages from the drain; the ids returned were not taken (the connection is going away). */
  private takeStored(messages: readonly StoredMessage[], acknowledge: (msgIds: string[]) => void): string[] {
    this.acknowledgeStored = acknowledge;
    const refused: string[] = [];
    for (const message of messages) {
      if (refused.length > 0 || !this.hold(message, this.unreadAnswered, 'stored')) refused.push(message.msgId);
    }
    return refused;
  }

  /**
   * Events kept while the user was offline: held as events are, and forgotten by the store once the
   * client acknowledged them (the pull carrying their batch's key); dropped with the connection, they stay kept.
   */
  private takeKept(events: ReadonlyArray<{ id: string; frame: ImServerFrame }>, acknowledge: (ids: string[]) => void): void {
    const login = this.login;
    if (!login) return;
    this.acknowledgeKept = acknowledge;
    for (const { id, frame } of events) {
      const event = eventMeta(login, frame, this.im.ids);
      // As stored messages: held silently until the first UNREAD answer lists their queues (a NOTICE too would start a second pull).
      if (event && !this.place(event, 'kept', this.unreadAnswered, id)) return;
    }
  }

  /**
   * Resolves once the client has pulled enough that a drain may add stored messages (a batch, or
   * whatever is left when it holds none), with how many; 0 once the connection is closing.
   */
  private async roomForStored(): Promise<number> {
    for (;;) {
      if (this.state === 'closed' || !this.login?.lease.active) return 0;
      const room = this.outbox.roomForStored();
      if (room >= PULL_BATCH || (room > 0 && this.outbox.size === 0)) return room;
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
  }

  private wakeRoomWaiters(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  private async unread(): Promise<void> {
    await this.feed?.started;
    if (this.state === 'closed') return;
    this.unreadAnswered = true;
    this.write(encodeUnreadReply(this.outbox.unread(), this.clock.now()));
  }

  private async sync(frame: MsyncFrame): Promise<void> {
    const login = this.login;
    if (!login) throw new AppError('internal_error');
    const up = decodeSyncUp(frame.payload);
    if (up.meta) {
      const { reply } = await handleMeta(this.im, login, up.meta, this.lastReply);
      this.lastReply = reply;
      // Written even after a LOGOUT frame (its answer waits for these); a closed socket drops it.
      const written = reply
        .then((down) => {
          if (down) this.write(encodeSyncDown(down));
        })
        .catch(() => this.failed());
      this.inFlight.push(written);
      void written.finally(() => this.inFlight.splice(this.inFlight.indexOf(written), 1));
      if (this.inFlight.length >= SENDS_IN_FLIGHT) await this.inFlight[0];
      return;
    }
    const { down, acked } = this.outbox.pull(up.queue, up.key);
    const stored = acked.filter((h) => h.origin === 'stored').map((h) => h.meta.id);
    if (stored.length > 0) this.acknowledgeStored?.(stored);
    const kept = acked.flatMap((h) => (h.origin === 'kept' && h.ref !== undefined ? [h.ref] : []));
    if (kept.length > 0) this.acknowledgeKept?.(kept);
    this.write(encodeSyncDown({ status: OK, ...down }));
    this.wakeRoomWaiters();
  }

  private async logout(): Promise<void> {
    // The answers of the sends still in flight go out before the logout's.
    await Promise.all(this.inFlight);
    this.write(encodeLogoutReply(OK));
    this.closeWith(CLOSE.normal, 'logged out');
  }
}

/** An event frame (receipt, recall, edit, contact event, group notice) as the meta the SDK expects, with its queue. */
function eventMeta(login: { appKey: string; username: string }, frame: ImServerFrame, ids: { next(): string }): { queue: Jid; meta: MetaOut } | undefined {
  switch (frame.op) {
    case 'receipt':
      return receiptMeta(login.appKey, frame);
    case 'recall':
      return recallMeta(login.appKey, frame, login.username);
    case 'edit':
      return editMeta(login.appKey, frame, login.username);
    case 'roster':
      return { queue: rosterQueue(login.appKey, frame), meta: rosterMeta(login.appKey, frame, ids.next()) };
    case 'group_event':
      return { queue: mucQueue(login.appKey, frame), meta: mucMeta(login.appKey, frame, ids.next()) };
    default:
      return undefined;
  }
}
