/**
 * Verifying an operator event (contract 6.7) on the operator's receiver: the Standard Webhooks
 * signature keyed with the operations webhook's secret (its UTF-8 bytes), then the body
 * `{type, timestamp, data}`. Pass the body exactly as received, before any JSON parsing.
 */
import { OPERATOR_EVENT_TYPES, type OperatorEvent } from '@parley/protocol';
import { headerOf, signedByAny } from './signed-request.js';
import { WebhookVerificationError } from './webhook.js';

export interface VerifyOperatorEventInput {
  /** The operations webhook's secret (or several, while moving from one to another). */
  secret: string | readonly string[];
  /** Request headers (any case), e.g. `req.headers` of node:http. */
  headers: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
  /** Allowed clock difference, seconds (default 300). */
  toleranceSeconds?: number;
  nowSeconds?: number;
}

/** Returns the event and its id (`webhook-id`, the same on every attempt: de-duplicate on it); throws WebhookVerificationError otherwise. */
export function verifyOperatorEvent(input: VerifyOperatorEventInput): { eventId: string; event: OperatorEvent } {
  const ok = signedByAny({ secrets: input.secret, headers: input.headers, body: input.body, nowSeconds: input.nowSeconds, toleranceSeconds: input.toleranceSeconds });
  if (!ok) throw new WebhookVerificationError('webhook signature is missing, stale or does not match');
  return { eventId: headerOf(input.headers, 'webhook-id') as string, event: parseOperatorEvent(input.body) };
}

/** Parses an operator event's body; throws WebhookVerificationError for anything else. */
export function parseOperatorEvent(body: string | Uint8Array): OperatorEvent {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('operator event body is not JSON');
  }
  const obj = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (!(OPERATOR_EVENT_TYPES as readonly unknown[]).includes(obj.type)) throw new WebhookVerificationError(`unknown operator event type ${String(obj.type)}`);
  if (typeof obj.timestamp !== 'number' || typeof obj.data !== 'object' || obj.data === null) throw new WebhookVerificationError('operator event lacks timestamp or data');
  return obj as unknown as OperatorEvent;
}
