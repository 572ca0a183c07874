/**
 * Logins and logouts of sockets (msync and the JSON socket), as `userStatus` callback events
 * (Easemob's `callback_login_logout`, operation-events.ts). A socket admitted for a user is a
 * login; when it closes, a logout, or `replaced` when the server dropped it because the user
 * logged in on one device too many (4206) or was deleted (4001): Easemob's "kicked" reason.
 *
 *   admitted ──▶ login ──socket closed──▶ logout
 *                  └──dropped 4206 / 4001──▶ (closes) ──▶ replaced
 *
 * The events of one socket are written in order (its logout after its login). They write nothing
 * but their jobs, so a failure to write them is reported and never affects the socket.
 */
import type { Clock } from '../../kernel/clock.js';
import type { OperationEvents, UserStatusEvent } from './operation-events.js';
import type { ImApp } from './ports.js';
import { CLOSE_REPLACED, CLOSE_USER_REMOVED } from './socket-limits.js';

/** What a socket tells of itself at login. */
export interface LoginInfo {
  /** ios, android, linux, osx, win or other. */
  os: string;
  ip: string;
  /** The connection's resource (device). */
  resource: string;
  version?: string;
}

/** msync Provision.osType (easemob.pb) → the record's `os`. */
const OS_NAMES: Readonly<Record<number, string>> = { 0: 'ios', 1: 'android', 2: 'linux', 3: 'osx', 4: 'win' };
export const osName = (osType: number | undefined): string => (osType === undefined ? 'other' : (OS_NAMES[osType] ?? 'other'));

export class UserStatuses {
  constructor(
    private readonly ops: OperationEvents,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A socket of `username` was admitted: its login now; the session says how it ends. */
  login(app: ImApp, username: string, info: LoginInfo): UserSession {
    return new UserSession((status, reason) => {
      const event: UserStatusEvent = {
        kind: 'userStatus',
        appId: app.id,
        appkey: app.appkey,
        timestamp: this.clock.now(),
        username,
        status,
        reason,
        os: info.os,
        ip: info.ip,
        resource: info.resource,
        version: info.version ?? '',
      };
      return this.ops.emit([event]).catch(this.onError);
    });
  }
}

export class UserSession {
  private reason: 'logout' | 'replaced' = 'logout';
  private ended = false;
  private written: Promise<void>;

  constructor(private readonly emit: (status: UserStatusEvent['status'], reason: UserStatusEvent['reason']) => Promise<void>) {
    this.written = emit('online', 'login');
  }

  /** The server dropped the socket with `code`: another device or a deletion makes the logout `replaced`. */
  dropped(code: number): void {
    if (code === CLOSE_REPLACED || code === CLOSE_USER_REMOVED) this.reason = 'replaced';
  }

  /** The socket closed: its logout, once, after its login. Resolves once written (tests). */
  closed(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.written = this.written.then(() => this.emit('offline', this.reason));
    }
    return this.written;
  }
}
