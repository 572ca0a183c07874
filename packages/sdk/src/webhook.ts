/**
 * Verifying an agent-reply push (contract 3.4, Standard Webhooks) on the customer's server.
 * Pass the body exactly as received (bytes or text), before any JSON parsing.
 */
import { INTEGRATOR_EVENT_NAMES, type AgentReplyPush, type ConversationEventPush } from '@parley/protocol';
import { headerOf, signedByAny } from './signed-request.js';

export interface VerifyPushInput {
  /** The association's Client Secret, or several (the new and the old one while a rotation overlaps, contract 6.6). */
  clientSecret: string | readonly string[];
  /** Request headers (any case), e.g. `req.headers` of node:http. */
  headers: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
  /** Allowed clock difference, seconds (default 300). */
  toleranceSeconds?: number;
  nowSeconds?: number;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Returns the push when its signature holds; throws WebhookVerificationError otherwise. */
export function verifyReplyPush(input: VerifyPushInput): { deliveryId: string; push: AgentReplyPush } {
  const ok = signedByAny({ secrets: input.clientSecret, headers: input.headers, body: input.body, nowSeconds: input.nowSeconds, toleranceSeconds: input.toleranceSeconds });
  if (!ok) throw new WebhookVerificationError('webhook signature is missing, stale or does not match');
  const text = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  return { deliveryId: headerOf(input.headers, 'webhook-id') as string, push: JSON.parse(text) as AgentReplyPush };
}

/** What Parley pushes to the callback address: an agent reply (spec 2.3) or a conversation event (contract 6.4). */
export type ParleyPush = { kind: 'reply'; push: AgentReplyPush; system: boolean } | { kind: 'event'; event: ConversationEventPush };

/**
 * Tells a push apart by the presence of `event` (contract 6.4): a conversation event, or an agent
 * reply (`system` true for automatic messages: welcome, out-of-hours, queue notice, idle warning).
 * Throws WebhookVerificationError for a body that is neither.
 */
export function parsePush(body: string | Uint8Array): ParleyPush {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('push body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw new WebhookVerificationError('push body is not an object');
  const obj = parsed as Record<string, unknown>;
  if ('event' in obj) {
    if (!(INTEGRATOR_EVENT_NAMES as readonly unknown[]).includes(obj.event)) throw new WebhookVerificationError(`unknown event ${String(obj.event)}`);
    return { kind: 'event', event: obj as unknown as ConversationEventPush };
  }
  if (!Array.isArray(obj.bodies)) throw new WebhookVerificationError('push is neither an event nor a reply');
  const push = obj as unknown as AgentReplyPush;
  return { kind: 'reply', push, system: (push.ext as { system?: boolean } | undefined)?.system === true };
}

/** Verifies the signature (as verifyReplyPush), then tells a reply from a conversation event. */
export function verifyPush(input: VerifyPushInput): { deliveryId: string } & ParleyPush {
  const { deliveryId } = verifyReplyPush(input);
  return { deliveryId, ...parsePush(input.body) };
}
