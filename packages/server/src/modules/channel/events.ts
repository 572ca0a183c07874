/**
 * Live events for agents' workspaces. Domain code publishes after a commit; the SSE route
 * subscribes per tenant. An interface so that a multi-instance deployment can swap the
 * in-process bus for Redis pub/sub without touching publishers or subscribers.
 */
import { EventEmitter } from 'node:events';
import type { ChannelEvent } from '@parley/protocol';
import type { PubSub } from '../coordination/ports.js';

export type ChannelEventListener = (event: ChannelEvent) => void;

export interface ChannelEventBus {
  publish(event: ChannelEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(tenantId: number, listener: ChannelEventListener): () => void;
}

export function inProcessEventBus(): ChannelEventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(event) {
      emitter.emit(`tenant:${event.tenantId}`, event);
    },
    subscribe(tenantId, listener) {
      const name = `tenant:${tenantId}`;
      // A throwing listener (a closed stream) must not stop the others or the publisher.
      const safe = (event: ChannelEvent) => {
        try {
          listener(event);
        } catch {
          /* the subscriber cleans up on its own close */
        }
      };
      emitter.on(name, safe);
      return () => emitter.off(name, safe);
    },
  };
}

const TOPIC = 'channel.events';

/**
 * Events across instances: published on the coordination pub/sub (Redis), delivered to this
 * instance's subscribers from there, so an agent connected to any instance sees every event.
 */
export function pubsubEventBus(pubsub: PubSub): ChannelEventBus {
  const local = inProcessEventBus();
  void pubsub.subscribe(TOPIC, (payload) => {
    try {
      local.publish(JSON.parse(payload) as ChannelEvent);
    } catch {
      /* a malformed message from another version: ignore it */
    }
  });
  return {
    publish: (event) => pubsub.publish(TOPIC, JSON.stringify(event)),
    subscribe: (tenantId, listener) => local.subscribe(tenantId, listener),
  };
}
