/**
 * Presence across instances (REDIS_URL set). Sockets stay in the process that accepted them
 * (an InProcessPresence); Redis records which instances hold a *ready* socket of each user:
 *
 *   {prefix}presence:{appId}:{username}  sorted set, member = instance id, score = expiry (ms)
 *
 * An instance refreshes its entries every ttl/3 (heartbeat); an instance that dies stops
 * refreshing and its users count as offline once the score passes, so messages are stored for
 * them instead of being pushed into the void. Frames for a socket on another instance travel on
 * that instance's own pub/sub topic `im.presence.{instanceId}`.
 *
 * The live push of a message and its fan-out job may run on different instances and both push
 * it; the instance holding the socket sends each msg_id to a user once (it remembers the msg_ids
 * it pushed for 5 minutes), so the second push is dropped there.
 *
 * Online checks that cannot reach Redis fall back to this instance's sockets: the message is then
 * stored for users connected elsewhere (delivered later, never lost).
 */
import { randomUUID } from 'node:crypto';
import type { ImServerFrame } from '@parley/protocol';
import type { Redis } from 'ioredis';
import type { Clock } from '../../kernel/clock.js';
import type { PubSub } from '../coordination/ports.js';
import { InProcessPresence, type ImConnection, type Presence } from './presence.js';

type RemoteCommand =
  | { t: 'deliver'; appId: string; usernames: string[]; frame: ImServerFrame }
  | { t: 'drain'; appId: string; username: string }
  | { t: 'disconnect'; appId: string; username: string; reason: string };

export interface RedisPresenceOptions {
  redis: Redis;
  pubsub: PubSub;
  clock: Clock;
  prefix: string;
  /** How long an entry stays valid without a refresh (default 30 s). */
  ttlMs?: number;
  onError?: (error: unknown) => void;
}

const PUSHED_MEMORY_MS = 5 * 60_000;

export class RedisPresence implements Presence {
  readonly instanceId = randomUUID();
  private readonly local = new InProcessPresence();
  /** Ready sockets per user in this process: what the heartbeat refreshes. */
  private readonly ready = new Map<string, { appId: string; username: string; ids: Set<string> }>();
  private drainHandler: (appId: string, username: string) => void = () => undefined;
  private unreachedHandler: (appId: string, usernames: string[], frame: ImServerFrame) => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly ttlMs: number;
  /** `appId user msgId` → when it was pushed here; insertion-ordered, swept from the front. */
  private readonly pushed = new Map<string, number>();

  constructor(private readonly opts: RedisPresenceOptions) {
    this.ttlMs = opts.ttlMs ?? 30_000;
  }

  private topic(instance: string): string {
    return `im.presence.${instance}`;
  }

  private key(appId: string, username: string): string {
    return `${this.opts.prefix}presence:${appId}:${username}`;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.opts.pubsub.subscribe(this.topic(this.instanceId), (payload) => this.onCommand(payload));
    this.timer = setInterval(() => void this.refresh(), Math.max(1_000, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    const multi = this.opts.redis.multi();
    for (const { appId, username } of this.ready.values()) multi.zrem(this.key(appId, username), this.instanceId);
    await multi.exec().catch(() => undefined);
    this.ready.clear();
  }

  private onCommand(payload: string): void {
    const command = JSON.parse(payload) as RemoteCommand;
    if (command.t === 'deliver') {
      // A socket that closed since the sender looked: the user gets the message stored instead.
      const reached = this.deliverOnce(command.appId, command.usernames, command.frame);
      const unreached = command.usernames.filter((u) => !reached.has(u));
      if (unreached.length > 0) this.unreachedHandler(command.appId, unreached, command.frame);
    }
    else if (command.t === 'drain') this.drainHandler(command.appId, command.username);
    else this.local.disconnect(command.appId, command.username, command.reason);
  }

  /** Re-announces every user with a ready socket here (after a Redis restart too). */
  private async refresh(): Promise<void> {
    if (this.ready.size === 0) return;
    const expiry = this.opts.clock.now() + this.ttlMs;
    const multi = this.opts.redis.multi();
    for (const { appId, username } of this.ready.values()) {
      const key = this.key(appId, username);
      multi.zadd(key, expiry, this.instanceId).pexpire(key, this.ttlMs);
    }
    await multi.exec().catch((error: unknown) => this.opts.onError?.(error));
  }

  add(appId: string, username: string, connection: ImConnection): void {
    this.local.add(appId, username, connection);
  }

  markReady(appId: string, username: string, connection: ImConnection): void {
    this.local.markReady(appId, username, connection);
    const userKey = `${appId}\u0000${username}`;
    let entry = this.ready.get(userKey);
    if (!entry) {
      entry = { appId, username, ids: new Set() };
      this.ready.set(userKey, entry);
    }
    entry.ids.add(connection.id);
    const key = this.key(appId, username);
    void this.opts.redis
      .multi()
      .zadd(key, this.opts.clock.now() + this.ttlMs, this.instanceId)
      .pexpire(key, this.ttlMs)
      .exec()
      // A message stored for this user by another instance before it could see the entry is
      // drained now that the entry is visible.
      .then(() => this.drainHandler(appId, username))
      .catch((error: unknown) => this.opts.onError?.(error));
  }

  remove(appId: string, username: string, connection: ImConnection): void {
    this.local.remove(appId, username, connection);
    const userKey = `${appId}\u0000${username}`;
    const entry = this.ready.get(userKey);
    if (!entry?.ids.delete(connection.id) || entry.ids.size > 0) return;
    this.ready.delete(userKey);
    this.opts.redis.zrem(this.key(appId, username), this.instanceId).catch((error: unknown) => this.opts.onError?.(error));
  }

  /** Instances other than this one holding a live ready socket of each user. */
  private async remoteHolders(appId: string, usernames: readonly string[]): Promise<Map<string, string[]>> {
    const holders = new Map<string, string[]>();
    if (usernames.length === 0) return holders;
    const now = this.opts.clock.now();
    const pipeline = this.opts.redis.pipeline();
    for (const name of usernames) pipeline.zrangebyscore(this.key(appId, name), now, '+inf');
    const results = (await pipeline.exec()) ?? [];
    usernames.forEach((name, i) => {
      const [error, members] = results[i] ?? [null, []];
      if (error) throw error;
      const others = (members as string[]).filter((m) => m !== this.instanceId);
      if (others.length > 0) holders.set(name, others);
    });
    return holders;
  }

  async onlineAmong(appId: string, usernames: readonly string[]): Promise<Set<string>> {
    const online = await this.local.onlineAmong(appId, usernames);
    const rest = usernames.filter((u) => !online.has(u));
    try {
      for (const name of (await this.remoteHolders(appId, rest)).keys()) online.add(name);
    } catch (error) {
      // Redis unreachable: users connected elsewhere count as offline, so their messages are stored.
      this.opts.onError?.(error);
    }
    return online;
  }

  async onlineElsewhere(appId: string, username: string, except: string): Promise<boolean> {
    if (this.local.readyHere(appId, username, except)) return true;
    try {
      return (await this.remoteHolders(appId, [username])).has(username);
    } catch (error) {
      // Redis unreachable: the user's sockets elsewhere count as offline, so their copy is stored.
      this.opts.onError?.(error);
      return false;
    }
  }

  async deliver(appId: string, usernames: readonly string[], frame: ImServerFrame): Promise<Set<string>> {
    const reached = this.deliverOnce(appId, usernames, frame);
    let holders: Map<string, string[]>;
    try {
      // A copy for the sender's other devices looks elsewhere too (the sending device is here).
      const sync = frame.op === 'message' && frame.device !== undefined;
      holders = await this.remoteHolders(
        appId,
        usernames.filter((u) => sync || !reached.has(u)),
      );
    } catch (error) {
      this.opts.onError?.(error);
      return reached;
    }
    const byInstance = new Map<string, string[]>();
    for (const [name, instances] of holders) {
      for (const instance of instances) byInstance.set(instance, [...(byInstance.get(instance) ?? []), name]);
    }
    for (const [instance, names] of byInstance) {
      this.publish(instance, { t: 'deliver', appId, usernames: names, frame });
      for (const name of names) reached.add(name);
    }
    return reached;
  }

  onUnreached(handler: (appId: string, usernames: string[], frame: ImServerFrame) => void): void {
    this.unreachedHandler = handler;
  }

  /**
   * Pushes to the sockets here (held for those not ready yet), skipping users who already got this
   * msg_id from this instance (they count as reached); answers the users reached.
   */
  private deliverOnce(appId: string, usernames: readonly string[], frame: ImServerFrame): Set<string> {
    if (frame.op !== 'message') return this.local.deliverReady(appId, usernames, frame);
    const now = this.opts.clock.now();
    for (const [key, at] of this.pushed) {
      if (now - at < PUSHED_MEMORY_MS) break;
      this.pushed.delete(key);
    }
    const already = new Set<string>();
    const fresh = usernames.filter((u) => {
      const key = `${appId}\u0000${u}\u0000${frame.msg_id}`;
      if (this.pushed.has(key)) {
        already.add(u);
        return false;
      }
      if (this.local.connections(appId, u) > 0) this.pushed.set(key, now);
      return true;
    });
    const reached = this.local.deliverReady(appId, fresh, frame);
    for (const u of already) reached.add(u);
    return reached;
  }

  connections(appId: string, username: string): number {
    return this.local.connections(appId, username);
  }

  disconnect(appId: string, username: string, reason: string): void {
    this.local.disconnect(appId, username, reason);
    void this.toHolders(appId, username, { t: 'disconnect', appId, username, reason });
  }

  size(): number {
    return this.local.size();
  }

  requestDrain(appId: string, username: string): void {
    void this.toHolders(appId, username, { t: 'drain', appId, username });
  }

  onDrainRequest(handler: (appId: string, username: string) => void): void {
    this.drainHandler = handler;
  }

  private async toHolders(appId: string, username: string, command: RemoteCommand): Promise<void> {
    try {
      for (const instance of (await this.remoteHolders(appId, [username])).get(username) ?? []) this.publish(instance, command);
    } catch (error) {
      this.opts.onError?.(error);
    }
  }

  private publish(instance: string, command: RemoteCommand): void {
    this.opts.pubsub.publish(this.topic(instance), JSON.stringify(command));
  }
}
