/**
 * What the IM core counts, as a port given to its parts at construction: messages committed,
 * offline messages stored and delivered, fan-out lag, and the sockets this process holds.
 * `promImMetrics` keeps them in a Prometheus registry (the composition root's); `noImMetrics`
 * counts nothing.
 *
 * Every label value is known in advance, so each counter's children are made once here and a
 * count on the hot path is a lookup and an add, never a label object per message.
 */
import { IM_BODY_TYPES } from '@parley/protocol';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { MessageChatType } from './post-send.js';

export interface ImMetrics {
  /** `count` messages of `chatType` committed, whose first body is of `bodyType` (`txt`, `img`, ...). */
  sent(chatType: MessageChatType, bodyType: string | undefined, count: number): void;
  /** `count` offline rows committed by a fan-out. */
  offlineStored(count: number): void;
  /** `count` stored messages acknowledged by a client (delivered). */
  offlineDelivered(count: number): void;
  /** Messages pushed to `users` receivers online: by the sender's live push, or by the fan-out (those who came online since). */
  pushed(path: 'live' | 'fanout', users: number): void;
  /** A fan-out job finished, `seconds` after the commit that wrote its messages and enqueued it. */
  fanoutDone(seconds: number): void;
  /** The open sockets of this process, read when the metrics are collected. */
  watchSockets(count: () => number): void;
}

export const noImMetrics: ImMetrics = {
  sent: () => undefined,
  offlineStored: () => undefined,
  offlineDelivered: () => undefined,
  pushed: () => undefined,
  fanoutDone: () => undefined,
  watchSockets: () => undefined,
};

const CHAT_TYPES: readonly MessageChatType[] = ['chat', 'groupchat', 'chatroom'];
/** Fan-out runs right after the commit unless the queue is behind: milliseconds up to minutes. */
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Child = { inc(value?: number): void };

export function promImMetrics(registry: Registry): ImMetrics {
  const messages = new Counter({
    name: 'parley_im_messages_total',
    help: 'IM messages committed (one per receiving user, group or chat room), by chat type and the type of the first body',
    labelNames: ['chat_type', 'type'] as const,
    registers: [registry],
  });
  // chat type → body type → child, all made now (so every series shows, at 0, from the start).
  const byType = new Map<string, Map<string, Child>>();
  for (const chatType of CHAT_TYPES) {
    const children = new Map<string, Child>();
    for (const type of [...IM_BODY_TYPES, 'other']) children.set(type, messages.labels(chatType, type));
    byType.set(chatType, children);
  }
  const stored = new Counter({ name: 'parley_im_offline_stored_total', help: 'IM messages stored for offline receivers', registers: [registry] });
  const delivered = new Counter({ name: 'parley_im_offline_delivered_total', help: 'Stored IM messages a client acknowledged', registers: [registry] });
  const pushes = new Counter({
    name: 'parley_im_pushed_total',
    help: 'IM messages pushed to online receivers (one per receiver), by the sender instance live or by the fan-out',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  const pushedLive = pushes.labels('live');
  const pushedByFanout = pushes.labels('fanout');
  const lag = new Histogram({
    name: 'parley_im_fanout_lag_seconds',
    help: 'Commit of IM messages to the end of their fan-out job (offline rows, post-send work, pushes)',
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  let sockets: () => number = () => 0;
  new Gauge({
    name: 'parley_im_sockets_open',
    help: 'IM sockets open on this instance (ready, or still receiving their stored messages)',
    registers: [registry],
    collect() {
      this.set(sockets());
    },
  });
  return {
    sent(chatType, bodyType, count) {
      const children = byType.get(chatType);
      (children?.get(bodyType ?? 'other') ?? children?.get('other'))?.inc(count);
    },
    offlineStored: (count) => stored.inc(count),
    offlineDelivered: (count) => delivered.inc(count),
    pushed: (path, users) => (path === 'live' ? pushedLive : pushedByFanout).inc(users),
    fanoutDone: (seconds) => lag.observe(Math.max(0, seconds)),
    watchSockets(count) {
      sockets = count;
    },
  };
}
