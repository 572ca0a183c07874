/**
 * Agent-reply push (contract 3.4): one durable job per delivery, run through the shared
 * outbound sender. Jobs of one customer share an ordering key, so a later reply waits while an
 * earlier one is being retried. Every attempt is logged; the retry policy decides what next.
 * The attempts of pushes that finish together are written by one group commit (one transaction,
 * shared with the other writes of the moment), each before its job completes.
 */
import { standardWebhookHeaders, type DeliveryStatus } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { GroupWriter, UnitOfWork } from '../../kernel/unit-of-work.js';
import { liveSecrets } from '../../kernel/secret-overlap.js';
import type { Job, JobResult } from '../jobs/ports.js';
import type { OperatorAlerts } from '../operations/raise.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { AssociationsService } from './associations.js';
import type { ChannelEventBus } from './events.js';
import type { DeliveriesRepository, DeliveryAttempt } from './ports.js';
import { nextPushAttempt } from './retry-policy.js';
import type { ChannelTransaction } from './transaction.js';

export const CHANNEL_PUSH_QUEUE = 'channel.push';

export interface PushJob {
  deliveryId: string;
}

export const pushOrderingKey = (channelId: number, customerId: string) => `channel.push:${channelId}:${customerId}`;

export interface PushSettings {
  timeoutMs: number;
  maxResponseBytes: number;
}

export const DEFAULT_PUSH_SETTINGS: PushSettings = { timeoutMs: 10_000, maxResponseBytes: 4096 };

/** One attempt to record: the delivery, what happened, its next state. */
interface AttemptRecord {
  id: string;
  attempt: Omit<DeliveryAttempt, 'attempt'>;
  next: { status: DeliveryStatus; nextAttemptAt: number | null };
  now: number;
}

export class ReplyPusher {
  private readonly attempts: GroupWriter<AttemptRecord, DeliveryAttempt>;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    uow: UnitOfWork<ChannelTransaction>,
    private readonly associations: AssociationsService,
    private readonly outbound: OutboundSender,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
    private readonly settings: PushSettings = DEFAULT_PUSH_SETTINGS,
    /** Where a delivery out of retries raises `delivery.exhausted` (contract 6.7), with its `failed` state. */
    private readonly alerts?: OperatorAlerts<ChannelTransaction>,
    private readonly random: () => number = Math.random,
  ) {
    this.attempts = uow.groupCommit(async (tx, records) => {
      const written: DeliveryAttempt[] = [];
      for (const r of records) written.push(await tx.channel.recordAttempt(r.id, r.attempt, r.next, r.now));
      return written;
    });
  }

  /** The job handler of CHANNEL_PUSH_QUEUE. */
  readonly handle = async (job: Job<PushJob>): Promise<JobResult> => {
    const delivery = await this.deliveries.get(job.payload.deliveryId);
    if (!delivery || delivery.status !== 'pending') return { status: 'done' };
    const association = await this.associations.openById(delivery.tenantId, delivery.channelId);
    if (!association) return { status: 'discard', error: 'association deleted' };

    const startedAt = this.clock.now();
    // Standard Webhooks: the same webhook-id on every attempt, a fresh timestamp and signature;
    // during a rotation's overlap one signature per valid secret, the current one first.
    const own: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const keys = liveSecrets(association.clientSecret, association.previousClientSecret, startedAt);
    const headers = standardWebhookHeaders(keys, delivery.id, Math.floor(startedAt / 1000), delivery.body, own);
    const result = await this.outbound.post({
      url: association.callbackUrl,
      headers,
      body: delivery.body,
      timeoutMs: this.settings.timeoutMs,
      maxResponseBytes: this.settings.maxResponseBytes,
      // A hung receiver of one association holds only its own share of the origin's connections.
      budgetKey: `association:${association.id}`,
    });
    const succeeded = result.status !== undefined && result.status >= 200 && result.status < 300;
    const error = succeeded ? null : result.error ? `${result.error.kind}: ${result.error.message}` : `HTTP ${result.status}`;

    let status: DeliveryStatus = 'succeeded';
    let nextAttemptAt: number | null = null;
    let outcome: JobResult = { status: 'done' };
    if (!succeeded) {
      const decision = nextPushAttempt(job.attempts + 1, result.retryAfterMs, this.random());
      if (decision.action === 'retry') {
        status = 'pending';
        nextAttemptAt = this.clock.now() + decision.delayMs;
        outcome = { status: 'retry', runAt: nextAttemptAt, error: error ?? undefined };
      } else {
        status = 'failed';
        outcome = { status: 'discard', error: error ?? undefined };
      }
    }
    const attempt = { startedAt, statusCode: result.status ?? null, latencyMs: result.latencyMs, error, succeeded };
    if (status === 'failed' && this.alerts) {
      // The failed state and the operator event commit together: the event exists exactly when the delivery failed.
      const exhausted = { channel_id: delivery.channelId, delivery_id: delivery.id, msg_id: delivery.msgId, last_error: error ?? '' };
      await this.alerts.within(async (tx, raise) => {
        await tx.channel.recordAttempt(delivery.id, attempt, { status, nextAttemptAt }, this.clock.now());
        await raise({ scope: 'tenant', id: String(delivery.tenantId) }, { type: 'delivery.exhausted', data: exhausted });
      });
    } else {
      await this.attempts.submit({ id: delivery.id, attempt, next: { status, nextAttemptAt }, now: this.clock.now() });
    }
    // The workspace shows a reply's delivery; a conversation event (no message) is only in the log.
    if (delivery.msgId !== null && (status !== 'pending' || job.attempts === 0)) {
      this.events.publish({
        type: 'delivery_status',
        tenantId: delivery.tenantId,
        conversationId: delivery.conversationId,
        queueId: 0,
        agentId: delivery.agentId,
        msg_id: delivery.msgId,
        deliveryId: delivery.id,
        status,
      });
    }
    return outcome;
  };
}
