/** The operations endpoints (contract 6.7) of an IM app or a tenant, behind one interface for the console's panel. */
import type { OperationsWebhookRequest, OperationsWebhookView, OperatorEventView } from '@parley/protocol';

export interface OperationsApi {
  /** The webhook, or null when none is set. */
  webhook(signal?: AbortSignal): Promise<OperationsWebhookView | null>;
  save(request: OperationsWebhookRequest): Promise<OperationsWebhookView>;
  remove(): Promise<OperationsWebhookView>;
  events(limit: number, signal?: AbortSignal): Promise<OperatorEventView[]>;
}
