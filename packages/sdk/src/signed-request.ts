/** The Standard Webhooks headers of a request Parley sent, and whether one of the given secrets signed it. */
import { verifyStandardWebhook } from '@parley/protocol';

export type RequestHeaders = Record<string, string | string[] | undefined>;

export interface SignatureCheck {
  /** The secret, or several (the new and the old one while a rotation overlaps, contract 6.6). */
  secrets: string | readonly string[];
  headers: RequestHeaders;
  body: string | Uint8Array;
  /** Allowed clock difference, seconds (default 300). */
  toleranceSeconds?: number | undefined;
  nowSeconds?: number | undefined;
}

/** One header, in any case; the first value of a repeated one. */
export const headerOf = (headers: RequestHeaders, name: string): string | undefined => {
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

/** The request's `webhook-id`, `webhook-timestamp` and `webhook-signature`. */
export const webhookHeaders = (headers: RequestHeaders) => ({
  'webhook-id': headerOf(headers, 'webhook-id'),
  'webhook-timestamp': headerOf(headers, 'webhook-timestamp'),
  'webhook-signature': headerOf(headers, 'webhook-signature'),
});

/** Whether any of the secrets signed the request (Standard Webhooks, within the tolerance). */
export function signedByAny(check: SignatureCheck): boolean {
  const secrets = typeof check.secrets === 'string' ? [check.secrets] : check.secrets;
  const options = {
    nowSeconds: check.nowSeconds ?? Math.floor(Date.now() / 1000),
    ...(check.toleranceSeconds !== undefined ? { toleranceSeconds: check.toleranceSeconds } : {}),
  };
  const headers = webhookHeaders(check.headers);
  return secrets.some((secret) => verifyStandardWebhook(secret, headers, check.body, options));
}
