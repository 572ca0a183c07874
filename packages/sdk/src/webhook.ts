/**
 * Verifying an agent-reply push (contract 3.4, Standard Webhooks) on the customer's server.
 * Pass the body exactly as received (bytes or text), before any JSON parsing.
 */
import { verifyStandardWebhook, type AgentReplyPush } from '@parley/protocol';

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

const header = (headers: VerifyPushInput['headers'], name: string) => {
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

/** Returns the push when its signature holds; throws WebhookVerificationError otherwise. */
export function verifyReplyPush(input: VerifyPushInput): { deliveryId: string; push: AgentReplyPush } {
  const headers = {
    'webhook-id': header(input.headers, 'webhook-id'),
    'webhook-timestamp': header(input.headers, 'webhook-timestamp'),
    'webhook-signature': header(input.headers, 'webhook-signature'),
  };
  const options = {
    nowSeconds: input.nowSeconds ?? Math.floor(Date.now() / 1000),
    ...(input.toleranceSeconds !== undefined ? { toleranceSeconds: input.toleranceSeconds } : {}),
  };
  const secrets = typeof input.clientSecret === 'string' ? [input.clientSecret] : input.clientSecret;
  const ok = secrets.some((secret) => verifyStandardWebhook(secret, headers, input.body, options));
  if (!ok) throw new WebhookVerificationError('webhook signature is missing, stale or does not match');
  const text = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  return { deliveryId: headers['webhook-id'] as string, push: JSON.parse(text) as AgentReplyPush };
}
