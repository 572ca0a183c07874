/**
 * The signing of a callback record's JSON (spec 2.4, contract 4.5), with nothing of the record's
 * type: `security` appended as the last member, the body MD5 header and the Standard Webhooks
 * headers. record-signing.ts signs records with it on the thread that builds them; the outbound
 * sender signs with it the requests that carry their record unsigned (`OutboundRequest.signing`),
 * on the thread that sends them. Pure, but for a small cache of HMAC keys by secret.
 */
import type { KeyObject } from 'node:crypto';
import { CALLBACK_BODY_MD5_HEADER, callbackSecurity, md5Hex, standardWebhookHeaders, webhookKey, type WebhookKey } from '@parley/protocol';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

const CONTENT_TYPE = 'application/json; charset=utf-8';

/** `json` (an object's JSON without `security`) with `"security":…` added as its last member. */
export function withSecurity(json: string, security: string): string {
  const member = `"security":${JSON.stringify(security)}`;
  return json === '{}' ? `{${member}}` : `${json.slice(0, -1)},${member}}`;
}

/** The headers of a signed body: content type, body MD5, and the Standard Webhooks headers over `keys`. */
export function signedHeaders(body: string, callId: string, keys: WebhookKey | readonly WebhookKey[], nowMs: number): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPE, [CALLBACK_BODY_MD5_HEADER]: md5Hex(body) };
  return standardWebhookHeaders(keys, callId, Math.floor(nowMs / 1000), body, headers);
}

/**
 * A record given as its JSON (no `security` member), signed with one secret's text at `nowMs`:
 * the same bytes and headers as `signedRequest` (record-signing.ts) gives for the record itself.
 */
export function signedJson(json: string, callId: string, timestamp: number, secret: string, nowMs: number): SignedRequest {
  const body = withSecurity(json, callbackSecurity(callId, secret, timestamp));
  return { body, headers: signedHeaders(body, callId, cachedKey(secret), nowMs) };
}

/** HMAC keys by secret text, made once each; bounded, as the URL shapes of the sender are. */
const keys = new Map<string, KeyObject>();

function cachedKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1000) keys.clear();
    key = webhookKey(secret);
    keys.set(secret, key);
  }
  return key;
}
