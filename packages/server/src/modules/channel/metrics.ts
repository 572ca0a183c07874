/**
 * Prometheus counters of the REST channel, fed from the events this instance publishes (so each
 * event is counted once, by the instance where it happened, whatever bus carries it).
 */
import { Counter, type Registry } from 'prom-client';
import type { ChannelEventBus } from './events.js';

export function countingEventBus(bus: ChannelEventBus, registry: Registry): ChannelEventBus {
  const messages = new Counter({
    name: 'parley_channel_messages_total',
    help: 'REST-channel messages stored, by direction (customer, agent)',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  const conversations = new Counter({
    name: 'parley_channel_conversations_opened_total',
    help: 'REST-channel conversations opened',
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'parley_channel_delivery_outcomes_total',
    help: 'Agent-reply pushes that reached a final state, by status (succeeded, failed)',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  return {
    publish(event) {
      if (event.type === 'new_message') messages.inc({ direction: event.direction });
      else if (event.type === 'new_conversation') conversations.inc();
      else if (event.type === 'delivery_status' && event.status !== 'pending') deliveries.inc({ status: event.status });
      bus.publish(event);
    },
    subscribe: (tenantId, listener) => bus.subscribe(tenantId, listener),
  };
}
