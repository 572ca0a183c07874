/**
 * The job handler that sends one operator event to its owner's operations webhook: body
 * `{type, timestamp, data}`, Standard Webhooks headers keyed with the secret's UTF-8 bytes, the
 * event id as webhook-id on every attempt. Any 2xx is success; otherwise policy.ts decides.
 * Without a webhook (none configured, or removed since) nothing is sent.
 */
import { standardWebhookHeaders } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { Job, JobResult } from '../jobs/ports.js';
import type { OutboundSender } from '../outbound/ports.js';
import { nextOperatorAttempt } from './policy.js';
import type { OperationsRepository, StoredOperatorEvent } from './ports.js';
import type { OperatorSendJob } from './raise.js';

export const OPERATOR_SEND_TIMEOUT_MS = 10_000;

/** The exact body an event is sent with. */
export const operatorEventBody = (event: Pick<StoredOperatorEvent, 'type' | 'at' | 'data'>): string => JSON.stringify({ type: event.type, timestamp: event.at, data: event.data });

export class OperatorEventSender {
  constructor(
    private readonly repo: OperationsRepository,
    private readonly outbound: OutboundSender,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  readonly handle = async (job: Job<OperatorSendJob>): Promise<JobResult> => {
    const event = await this.repo.event(job.payload.eventId);
    if (!event || event.status !== 'pending') return { status: 'done' };
    const webhook = await this.repo.webhook(event.owner);
    if (!webhook) {
      await this.repo.noteSend(event.id, { status: 'no_webhook', attempts: event.attempts, lastError: null, at: this.clock.now() });
      return { status: 'done' };
    }
    const body = operatorEventBody(event);
    const now = this.clock.now();
    const own: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const headers = standardWebhookHeaders(webhook.secret, event.id, Math.floor(now / 1000), body, own);
    const result = await this.outbound.post({
      url: webhook.url,
      headers,
      body,
      timeoutMs: OPERATOR_SEND_TIMEOUT_MS,
      maxResponseBytes: 1024,
      budgetKey: `operations:${event.owner.scope}:${event.owner.id}`,
    });
    const attempts = event.attempts + 1;
    if (result.status !== undefined && result.status >= 200 && result.status < 300) {
      await this.repo.noteSend(event.id, { status: 'sent', attempts, lastError: null, at: this.clock.now() });
      return { status: 'done' };
    }
    const error = result.error ? `${result.error.kind}: ${result.error.message}` : `HTTP ${result.status}`;
    const decision = nextOperatorAttempt(attempts, this.random());
    if (decision.action === 'give_up') {
      await this.repo.noteSend(event.id, { status: 'failed', attempts, lastError: error, at: this.clock.now() });
      return { status: 'discard', error };
    }
    await this.repo.noteSend(event.id, { status: 'pending', attempts, lastError: error, at: this.clock.now() });
    return { status: 'retry', runAt: this.clock.now() + decision.delayMs, error };
  };
}
