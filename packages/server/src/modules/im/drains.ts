/**
 * Drains: a user's stored (offline) messages pushed to their sockets, oldest first (by msg_id),
 * on connect, after a fan-out stored a message for a user who came online meanwhile, and when
 * another instance asks.
 */
import type { Clock } from '../../kernel/clock.js';
import type { ImMetrics } from './metrics.js';
import type { ImMessagesRepository } from './ports.js';
import type { ImConnection, Presence } from './presence.js';
import { messageFrame } from './receivers.js';

const DRAIN_BATCH = 100;

export class Drains {
  /** Per user: the last drain chained, and the one not started yet (if any). */
  private readonly drains = new Map<string, { last?: Promise<void>; waiting?: Promise<void> }>();

  constructor(
    private readonly messages: ImMessagesRepository,
    private readonly presence: Presence,
    private readonly clock: Clock,
    private readonly metrics: Pick<ImMetrics, 'offlineDelivered'>,
  ) {}

  /**
   * A new socket of the user, added to presence: its stored messages first, then it counts as
   * online (unless `lease` ended meanwhile), then a drain again for anything stored in between.
   * Resolves once the socket is online, or would have been.
   */
  connect(appId: string, username: string, connection: ImConnection, lease: { readonly active: boolean }): Promise<void> {
    const ready = this.drain(appId, username).then(() => {
      if (lease.active) this.presence.markReady(appId, username, connection);
    });
    void ready.then(() => this.drain(appId, username));
    return ready;
  }

  /**
   * Pushes the user's stored messages to their sockets, oldest first. One drain per user at a
   * time, and at most one waiting behind it: a drain not started yet already covers whatever a
   * later request would, so requests never pile up behind a socket that is slow to take them.
   */
  drain(appId: string, username: string): Promise<void> {
    const key = `${appId}\u0000${username}`;
    const entry = this.drains.get(key) ?? {};
    if (entry.waiting) return entry.waiting;
    const next: Promise<void> = (entry.last ?? Promise.resolve())
      .then(() => {
        if (entry.waiting === next) entry.waiting = undefined;
        return this.drainNow(appId, username);
      })
      .catch(() => undefined);
    entry.waiting = next;
    entry.last = next;
    this.drains.set(key, entry);
    void next.then(() => {
      if (this.drains.get(key)?.last === next) this.drains.delete(key);
    });
    return next;
  }

  private async drainNow(appId: string, username: string): Promise<void> {
    for (;;) {
      // Claiming marks rows delivered: only claim while a socket is there to take them.
      if (this.presence.connections(appId, username) === 0) return;
      const batch = await this.messages.claimOffline(appId, username, this.clock.now(), DRAIN_BATCH);
      for (const m of batch) this.presence.deliverToAll(appId, username, messageFrame(m, true));
      if (batch.length > 0) this.metrics.offlineDelivered(batch.length);
      if (batch.length < DRAIN_BATCH) return;
      // The next batch only once the sockets have taken this one, so a slow socket holds one batch
      // at most, never the backlog (and a short backlog never waits at all).
      await this.presence.writable(appId, username);
    }
  }
}
