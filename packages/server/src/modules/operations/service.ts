/**
 * What the operations endpoints do (contract 6.7): set, read and remove an owner's operations
 * webhook, and list its latest events as notices. HTTP-free; throws AppError for client errors.
 */
import { OPERATOR_EVENTS_DEFAULT_LIMIT, type OperationsWebhookRequest, type OperationsWebhookView, type OperatorEventView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { randomHex } from '../../kernel/ids.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { OperationsRepository, OperationsWebhook, OperatorOwner, StoredOperatorEvent } from './ports.js';

/** A new operations secret: 32 lower-case hex characters (128 bits), like a rule secret. */
export const newOperationsSecret = (): string => randomHex(16);

const webhookView = (w: OperationsWebhook): OperationsWebhookView => ({ url: w.url, created_at: w.createdAt, updated_at: w.updatedAt });

const eventView = (e: StoredOperatorEvent): OperatorEventView => ({
  id: e.id,
  type: e.type,
  timestamp: e.at,
  data: e.data,
  delivery: { status: e.status, attempts: e.attempts, last_error: e.lastError },
});

export class OperationsService {
  constructor(
    private readonly repo: OperationsRepository,
    private readonly outbound: Pick<OutboundSender, 'assertAllowedUrl'>,
    private readonly clock: Clock,
  ) {}

  /** Sets the webhook; answers it with the secret in force (given, or generated), the only time the secret is shown. */
  async put(owner: OperatorOwner, body: OperationsWebhookRequest): Promise<OperationsWebhookView> {
    await this.outbound.assertAllowedUrl(body.url);
    const secret = body.secret ?? newOperationsSecret();
    const saved = await this.repo.putWebhook(owner, body.url, secret, this.clock.now());
    return { ...webhookView(saved), secret };
  }

  /** The webhook without its secret; null when none is set. */
  async get(owner: OperatorOwner): Promise<OperationsWebhookView | null> {
    const found = await this.repo.webhook(owner);
    return found ? webhookView(found) : null;
  }

  async delete(owner: OperatorOwner, resource: string): Promise<OperationsWebhookView> {
    const removed = await this.repo.deleteWebhook(owner);
    if (!removed) throw notFound(owner, resource);
    return webhookView(removed);
  }

  /** The owner's latest events, newest first, whether or not a webhook was there to receive them. */
  async recent(owner: OperatorOwner, limit = OPERATOR_EVENTS_DEFAULT_LIMIT): Promise<OperatorEventView[]> {
    return (await this.repo.recentEvents(owner, limit)).map(eventView);
  }
}

/** 404 in the owner's surface: `service_resource_not_found` (IM) or `not_found` (/api). */
function notFound(owner: OperatorOwner, resource: string): AppError {
  return owner.scope === 'app' ? new AppError('service_resource_not_found', { resource }) : new AppError('not_found', { resource });
}
