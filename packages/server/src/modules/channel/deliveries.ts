/**
 * The delivery log of an association (contract 3.1): every reply push with its attempts, and
 * re-delivery of one (a new run of the retry schedule, same webhook-id).
 */
import type { DeliveryStatus, DeliveryView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { AppError } from '../../kernel/errors.js';
import type { JobQueue } from '../jobs/ports.js';
import type { AssociationsService } from './associations.js';
import type { ChannelEventBus } from './events.js';
import type { DeliveriesRepository, Delivery, DeliveryAttempt } from './ports.js';
import { CHANNEL_PUSH_QUEUE, pushOrderingKey, type PushJob } from './push.js';
import type { ChannelTransaction } from './transaction.js';

const LIST_LIMIT = 500;

const deliveryView = (d: Delivery & { attemptLog: DeliveryAttempt[] }): DeliveryView => ({
  id: d.id,
  channelId: d.channelId,
  msg_id: d.msgId,
  event: d.event,
  to: d.customerId,
  status: d.status,
  attempts: d.attemptLog,
  nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export class DeliveriesService {
  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly uow: UnitOfWork<ChannelTransaction>,
    private readonly associations: AssociationsService,
    private readonly jobs: JobQueue,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
  ) {}

  async list(tenantId: number, channelId: number, status: DeliveryStatus | undefined): Promise<DeliveryView[]> {
    const association = await this.associations.require(tenantId, channelId);
    return (await this.repo.list(association.id, status, LIST_LIMIT)).map(deliveryView);
  }

  /** Queues a delivery again. A pending one is left alone: it is already on its way. */
  async redeliver(tenantId: number, channelId: number, deliveryId: string): Promise<DeliveryView> {
    const association = await this.associations.require(tenantId, channelId);
    const delivery = await this.repo.get(deliveryId);
    if (!delivery || delivery.channelId !== association.id) throw new AppError('not_found', { resource: `Delivery ${deliveryId}` });
    if (delivery.status !== 'pending') {
      const now = this.clock.now();
      await this.uow.run(async (tx) => {
        if (!(await tx.channel.requeueDelivery(delivery.id, now))) return;
        await tx.jobs.enqueue({
          queue: CHANNEL_PUSH_QUEUE,
          payload: { deliveryId: delivery.id } satisfies PushJob,
          orderingKey: pushOrderingKey(delivery.channelId, delivery.customerId),
        });
      });
      this.jobs.notify(CHANNEL_PUSH_QUEUE);
      if (delivery.msgId !== null) this.events.publish({
        type: 'delivery_status',
        tenantId,
        conversationId: delivery.conversationId,
        queueId: 0,
        agentId: delivery.agentId,
        msg_id: delivery.msgId,
        deliveryId: delivery.id,
        status: 'pending',
      });
    }
    const [view] = (await this.repo.list(association.id, undefined, LIST_LIMIT)).filter((d) => d.id === delivery.id);
    return deliveryView(view as Delivery & { attemptLog: DeliveryAttempt[] });
  }
}
