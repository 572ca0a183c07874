/**
 * Who is online, and the way to reach their sockets.
 *
 * A user is online while at least one of their sockets is open and *ready*: a new socket first
 * receives the messages stored while the user was offline, and only then counts as online, so a
 * live message never overtakes an older stored one. A live message for a user online on another
 * socket meanwhile is held for the new one and sent right after its stored messages (at most
 * HELD_MAX; past that the new socket is closed as a slow consumer, 1013). The interface is asynchronous so that a
 * multi-instance implementation (Redis pub/sub) can sit behind it; `InProcessPresence` serves
 * one process.
 */
import type { ImServerFrame } from '@parley/protocol';
import type { StoredMessage } from './ports.js';
import { CLOSE_USER_REMOVED } from './socket-limits.js';

export interface ImConnection {
  readonly id: string;
  /**
   * The device's resource (msync's, or the one a JSON socket names): the user's own messages,
   * recalls and edits made on that device are never handed to it from the store (devices.ts).
   */
  readonly resource?: string;
  /** Pushes a live frame; a socket over its outbound buffer bound is dropped instead (socket-limits.ts). */
  send(frame: ImServerFrame): void;
  /**
   * How many stored messages the connection takes now. Resolves once it can take some (its client
   * has taken most of what it was handed), with 0 once it is closing; a drain reads no more.
   */
  room(): Promise<number>;
  /**
   * Hands stored messages over (at most the last `room()`), oldest first; returns the ids it could
   * not take. `acknowledge` is called with the ids its client acknowledged, as it does.
   */
  sendStored(messages: readonly StoredMessage[], acknowledge: (msgIds: string[]) => void): string[];
  /**
   * Hands events kept for the user over (pending-events.ts), oldest first. `acknowledge` is called
   * with the ids of those its client acknowledged (msync: the pull carrying the batch's key; the
   * JSON socket: the write confirmed), as it does; those never acknowledged stay kept.
   */
  sendKept(events: ReadonlyArray<{ id: string; frame: ImServerFrame }>, acknowledge: (ids: string[]) => void): void;
  close(code: number, reason: string): void;
}

export interface Presence {
  /** A socket opened (not ready yet). */
  add(appId: string, username: string, connection: ImConnection): void;
  /** The socket received its stored messages and now counts as online. */
  markReady(appId: string, username: string, connection: ImConnection): void;
  remove(appId: string, username: string, connection: ImConnection): void;
  /** Those of `usernames` that are online. */
  onlineAmong(appId: string, usernames: readonly string[]): Promise<Set<string>>;
  /** Whether the user has a ready socket other than the connection `except` ('' : any), here or elsewhere. */
  onlineElsewhere(appId: string, username: string, except: string): Promise<boolean>;
  /**
   * Sends to every ready socket of each user, and holds it for their sockets not ready yet; answers
   * the users it reached (a socket got it or will), here or on the instance holding their sockets.
   */
  deliver(appId: string, usernames: readonly string[], frame: ImServerFrame): Promise<Set<string>>;
  /**
   * Where a message frame goes whose user turned out to have no socket when it arrived at the
   * instance that held one (it closed meanwhile): the IM module stores it for them.
   */
  onUnreached(handler: (appId: string, usernames: string[], frame: ImServerFrame) => void): void;
  /** Open sockets of a user in this process, ready or not. */
  connections(appId: string, username: string): number;
  /** Closes every socket of a user (the user was deleted). */
  disconnect(appId: string, username: string, reason: string): void;
  /** Open sockets in this process. */
  size(): number;
  /**
   * Asks the instances holding the user's sockets elsewhere to drain the user's stored messages
   * (a message was stored for a user who came online on another instance meanwhile).
   */
  requestDrain(appId: string, username: string): void;
  /** The drain this instance runs when asked (by another instance, or after going online). */
  onDrainRequest(handler: (appId: string, username: string) => void): void;
}

interface Entry {
  connection: ImConnection;
  ready: boolean;
  /** Live frames that came while the socket was not ready, sent when it becomes ready. */
  held?: ImServerFrame[];
}

/** Live frames held for one socket still receiving its stored messages. */
export const HELD_MAX = 1000;

export class InProcessPresence implements Presence {
  private readonly byUser = new Map<string, Map<string, Entry>>();
  private count = 0;

  constructor(private readonly heldMax = HELD_MAX) {}

  private key(appId: string, username: string): string {
    return `${appId}\u0000${username}`;
  }

  add(appId: string, username: string, connection: ImConnection): void {
    const key = this.key(appId, username);
    let entries = this.byUser.get(key);
    if (!entries) {
      entries = new Map();
      this.byUser.set(key, entries);
    }
    if (!entries.has(connection.id)) this.count++;
    entries.set(connection.id, { connection, ready: false });
  }

  markReady(appId: string, username: string, connection: ImConnection): void {
    const entry = this.byUser.get(this.key(appId, username))?.get(connection.id);
    if (!entry) return;
    for (const frame of entry.held ?? []) entry.connection.send(frame);
    entry.held = undefined;
    entry.ready = true;
  }

  remove(appId: string, username: string, connection: ImConnection): void {
    const key = this.key(appId, username);
    const entries = this.byUser.get(key);
    if (entries?.delete(connection.id)) this.count--;
    if (entries && entries.size === 0) this.byUser.delete(key);
  }

  async onlineAmong(appId: string, usernames: readonly string[]): Promise<Set<string>> {
    const online = new Set<string>();
    for (const name of usernames) {
      const entries = this.byUser.get(this.key(appId, name));
      if (entries && [...entries.values()].some((e) => e.ready)) online.add(name);
    }
    return online;
  }

  async onlineElsewhere(appId: string, username: string, except: string): Promise<boolean> {
    return this.readyHere(appId, username, except);
  }

  /** `onlineElsewhere` in this process, synchronously. */
  readyHere(appId: string, username: string, except: string): boolean {
    for (const [id, entry] of this.byUser.get(this.key(appId, username)) ?? []) if (entry.ready && id !== except) return true;
    return false;
  }

  async deliver(appId: string, usernames: readonly string[], frame: ImServerFrame): Promise<Set<string>> {
    return this.deliverReady(appId, usernames, frame);
  }

  /** `deliver`, synchronously. */
  deliverReady(appId: string, usernames: readonly string[], frame: ImServerFrame): Set<string> {
    const reached = new Set<string>();
    for (const name of usernames) {
      for (const entry of this.byUser.get(this.key(appId, name))?.values() ?? []) {
        if (entry.ready) entry.connection.send(frame);
        else if ((entry.held ??= []).length < this.heldMax) entry.held.push(frame);
        else {
          entry.connection.close(1013, 'slow consumer');
          continue;
        }
        reached.add(name);
      }
    }
    return reached;
  }

  /** One process: a user is reached or not at once (the caller sees it in `deliver`'s answer). */
  onUnreached(): void {}

  connections(appId: string, username: string): number {
    return this.byUser.get(this.key(appId, username))?.size ?? 0;
  }

  disconnect(appId: string, username: string, reason: string): void {
    for (const entry of [...(this.byUser.get(this.key(appId, username))?.values() ?? [])]) entry.connection.close(CLOSE_USER_REMOVED, reason);
  }

  size(): number {
    return this.count;
  }

  /** One process: the caller drains locally, nobody else holds sockets. */
  requestDrain(): void {}

  onDrainRequest(): void {}
}
