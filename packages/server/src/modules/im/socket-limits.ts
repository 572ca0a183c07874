/**
 * Bounds on open sockets, for every socket protocol Parley serves (today the SDK socket; another
 * protocol would share this instance), so a client cannot make the server hold memory without
 * bound:
 *
 * - **Outbound buffer.** A socket holding more than `bufferBytes` the network has not taken is a
 *   slow consumer. Before each frame the protocol asks `lease.admitFrame()`; over the bound the
 *   socket is dropped instead: closed with 1013 ("try again later") and, since a peer that does
 *   not read will not read the close frame either, terminated after a short grace, which frees
 *   what it held.
 * - **Per user.** Beyond `perUser` sockets of one user the oldest is closed with 4206 "logged in
 *   on another device" (Easemob's 206, USER_LOGIN_ANOTHER_DEVICE): the newest login wins, as on
 *   Easemob when a user logs in on one device too many.
 * - **Per app.** Beyond `perApp` sockets of one app a new one is refused: `assertRoom` before the
 *   upgrade (503), or 1013 right after it when two upgrades raced past the check.
 *
 * Counts are per process: with several instances each keeps its own.
 */
import { AppError } from '../../kernel/errors.js';

/** Dropped for not reading: its outbound buffer passed the bound. */
export const CLOSE_SLOW_CONSUMER = 1013;
/** Refused after the upgrade: the app is at its socket cap (a race with another upgrade). */
export const CLOSE_APP_FULL = 1013;
/** The user opened one socket too many; the oldest makes room (Easemob's 206). */
export const CLOSE_REPLACED = 4206;
/** The user was deleted: every socket of theirs closes (presence.disconnect). */
export const CLOSE_USER_REMOVED = 4001;

/** What the limits need of a socket (a `ws` WebSocket has all of it). */
export interface LimitedSocket {
  /** Bytes accepted by `send` and not yet handed to the network. */
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
  /** Destroys the connection at once, dropping whatever it still buffers. */
  terminate(): void;
}

/** The byte stream under a socket; its back-pressure signal paces stored-message drains. */
export interface SocketTransport {
  readonly writableNeedDrain: boolean;
  once(event: 'drain', listener: () => void): unknown;
}

export interface SocketLimitsOptions {
  /** Largest outbound buffer of one socket before it is dropped, bytes. */
  bufferBytes: number;
  /** Sockets of one user; the oldest is closed beyond. */
  perUser: number;
  /** Sockets of one app; new ones are refused beyond. */
  perApp: number;
  /** How long a dropped socket may take to read its close frame before it is terminated, ms. */
  closeGraceMs?: number;
  /** Runs the terminate after the grace (tests replace it). Default: an unref'd `setTimeout`. */
  schedule?: (run: () => void, ms: number) => void;
}

const DEFAULT_CLOSE_GRACE_MS = 2_000;

const defaultSchedule = (run: () => void, ms: number): void => {
  setTimeout(run, ms).unref();
};

/** One admitted socket. The protocol calls `release()` when the socket has closed. */
export class SocketLease {
  private state: 'active' | 'dropped' | 'released' = 'active';
  private waiters: Array<() => void> = [];

  constructor(
    private readonly limits: SocketLimits,
    readonly appId: string,
    readonly userKey: string,
    private readonly socket: LimitedSocket,
    private readonly transport: SocketTransport | undefined,
    private readonly onDrop: (code: number, reason: string) => void,
  ) {}

  /** Someone (a drain) is waiting for the transport to want more. */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** Admitted and not dropped: frames may still go to it. */
  get active(): boolean {
    return this.state === 'active';
  }

  /**
   * Whether the next frame may be written. A socket holding more than the bound is dropped here
   * (and false is returned), so a frame is never queued behind a peer that does not read.
   */
  admitFrame(): boolean {
    if (this.state !== 'active') return false;
    if (this.socket.bufferedAmount <= this.limits.bufferBytes) return true;
    this.drop(CLOSE_SLOW_CONSUMER, 'slow consumer: outbound buffer full');
    return false;
  }

  /**
   * Resolves once the transport wants more (it is below its high-water mark) or the socket is
   * gone. Stored-message drains wait here before each batch instead of piling batches up.
   */
  writable(): Promise<void> {
    if (this.state !== 'active' || !this.transport?.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.waiters.length === 0) this.transport?.once('drain', () => this.wake());
      this.waiters.push(resolve);
    });
  }

  /** Closes with `code` and terminates after the grace; the socket no longer counts for its user. */
  drop(code: number, reason: string): void {
    if (this.state !== 'active') return;
    this.state = 'dropped';
    this.limits.forgetUser(this);
    this.wake();
    this.limits.closeAndTerminate(this.socket, code, reason);
    this.onDrop(code, reason);
  }

  /** The socket closed: its slot is free. Idempotent. */
  release(): void {
    if (this.state === 'released') return;
    if (this.state === 'active') this.limits.forgetUser(this);
    this.state = 'released';
    this.limits.forgetApp(this);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

export class SocketLimits {
  readonly bufferBytes: number;
  private readonly perUser: number;
  private readonly perApp: number;
  private readonly closeGraceMs: number;
  private readonly schedule: (run: () => void, ms: number) => void;
  /** Active sockets per user, oldest first. */
  private readonly users = new Map<string, Set<SocketLease>>();
  /** Sockets per app until they have closed (dropped ones count until terminated). */
  private readonly apps = new Map<string, number>();
  private total = 0;

  constructor(options: SocketLimitsOptions) {
    this.bufferBytes = options.bufferBytes;
    this.perUser = options.perUser;
    this.perApp = options.perApp;
    this.closeGraceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.schedule = options.schedule ?? defaultSchedule;
  }

  /** Before the upgrade: 503 `service_unavailable` when the app has no room for another socket. */
  assertRoom(appId: string): void {
    if ((this.apps.get(appId) ?? 0) >= this.perApp) {
      throw new AppError('service_unavailable', { detail: `the app has reached its limit of ${this.perApp} open sockets on this server; try again later` });
    }
  }

  /**
   * Registers an open socket of `username`. Beyond the user's cap the oldest of their sockets is
   * dropped with 4206. Undefined when the app is at its cap: the socket is then closed with 1013.
   */
  admit(appId: string, username: string, socket: LimitedSocket, transport: SocketTransport | undefined, onDrop: (code: number, reason: string) => void): SocketLease | undefined {
    const held = this.apps.get(appId) ?? 0;
    if (held >= this.perApp) {
      this.closeAndTerminate(socket, CLOSE_APP_FULL, 'too many sockets for this app; try again later');
      return undefined;
    }
    const userKey = `${appId}\u0000${username}`;
    const lease = new SocketLease(this, appId, userKey, socket, transport, onDrop);
    this.apps.set(appId, held + 1);
    this.total++;
    let leases = this.users.get(userKey);
    if (!leases) {
      leases = new Set();
      this.users.set(userKey, leases);
    }
    leases.add(lease);
    while (leases.size > this.perUser) {
      const oldest = leases.values().next().value as SocketLease;
      oldest.drop(CLOSE_REPLACED, 'logged in on another device');
    }
    return lease;
  }

  /** Active sockets of a user in this process. */
  ofUser(appId: string, username: string): number {
    return this.users.get(`${appId}\u0000${username}`)?.size ?? 0;
  }

  /** Sockets of an app in this process that have not closed yet. */
  ofApp(appId: string): number {
    return this.apps.get(appId) ?? 0;
  }

  /** Sockets in this process that have not closed yet. */
  size(): number {
    return this.total;
  }

  /** @internal */
  closeAndTerminate(socket: LimitedSocket, code: number, reason: string): void {
    socket.close(code, reason);
    this.schedule(() => socket.terminate(), this.closeGraceMs);
  }

  /** @internal */
  forgetUser(lease: SocketLease): void {
    const leases = this.users.get(lease.userKey);
    if (!leases?.delete(lease)) return;
    if (leases.size === 0) this.users.delete(lease.userKey);
  }

  /** @internal */
  forgetApp(lease: SocketLease): void {
    const held = (this.apps.get(lease.appId) ?? 0) - 1;
    if (held > 0) this.apps.set(lease.appId, held);
    else this.apps.delete(lease.appId);
    this.total--;
  }
}
