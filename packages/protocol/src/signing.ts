/**
 * Signatures used on Parley's wire:
 * - the send-message HMAC (spec 5.1) that a customer's server puts on every request,
 * - the post-send callback `security` field (spec 5.2, contract 4.5),
 * - the Standard Webhooks signature on outbound pushes and callbacks (contract 3.4, 4.5).
 *
 * Pure functions over node:crypto; no I/O.
 */
import * as crypto from 'node:crypto';
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export type Bytes = string | Uint8Array;

/**
 * One-shot `crypto.hash` (Node 20.12+) costs about half of a Hash object for the short inputs
 * signed here; older runtimes (the SDK may run on one) take the Hash object.
 */
const oneShotHash: ((algorithm: string, data: Bytes, encoding: 'hex' | 'base64' | 'binary') => string) | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function md5Hex(data: Bytes): string {
  return oneShotHash ? oneShotHash('md5', data, 'hex') : createHash('md5').update(data).digest('hex');
}

export interface SendMessageSigningInput {
  method: string;
  /** Resource path, e.g. `/api/tenants/1024/rest/channels/7/messages` (no query string). */
  path: string;
  /** `X-Auth-Expires` exactly as sent (milliseconds; non-positive means never). */
  expires: number | string;
  /** The exact body bytes or text that are sent. */
  body: Bytes;
}

/** The four lines of spec 5.1, joined by `\n`, no trailing line feed. */
export function sendMessageStringToSign(input: SendMessageSigningInput): string {
  return [input.method.toUpperCase(), input.path, String(input.expires), md5Hex(input.body)].join('\n');
}

/**
 * The Client Secret as an HMAC key: its text, or a `KeyObject` made from its UTF-8 bytes once
 * (`sendMessageKey`). A server that checks many requests under one secret keeps the KeyObject,
 * so the secret is not re-encoded on every request.
 */
export type SendMessageKey = string | KeyObject;

/** The Client Secret's UTF-8 bytes as a secret `KeyObject` for `createHmac` (see SendMessageKey). */
export function sendMessageKey(clientSecret: string): KeyObject {
  return createSecretKey(Buffer.from(clientSecret, 'utf8'));
}

/** Base64 of the raw HMAC-SHA256 of the string to sign, keyed with the Client Secret. */
export function signSendMessage(clientSecret: SendMessageKey, input: SendMessageSigningInput): string {
  return createHmac('sha256', clientSecret).update(sendMessageStringToSign(input)).digest('base64');
}

export function sendMessageAuthorization(clientId: string, signature: string): string {
  return `hmac ${clientId}:${signature}`;
}

export interface ParsedHmacAuthorization {
  clientId: string;
  signature: string;
}

/** Parses `hmac {clientId}:{signature}`; returns undefined when the header is malformed. */
export function parseHmacAuthorization(header: string | undefined): ParsedHmacAuthorization | undefined {
  if (!header) return undefined;
  const match = /^hmac\s+([^:\s]+):(\S+)$/i.exec(header.trim());
  if (!match) return undefined;
  return { clientId: match[1] as string, signature: match[2] as string };
}

/** Constant-time comparison of two strings (length leak only). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    // Compare anyway so the time does not depend on where the strings differ.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function verifySendMessage(clientSecret: SendMessageKey, input: SendMessageSigningInput, signature: string): boolean {
  return constantTimeEqual(signSendMessage(clientSecret, input), signature);
}

/** `security` of a callback record: lower-case hex MD5 of callId + secret + timestamp (decimal). */
export function callbackSecurity(callId: string, secret: string, timestamp: number): string {
  return md5Hex(`${callId}${secret}${timestamp}`);
}

export function verifyCallbackSecurity(callId: string, secret: string, timestamp: number, security: string): boolean {
  return constantTimeEqual(callbackSecurity(callId, secret, timestamp), security.toLowerCase());
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * A Standard Webhooks signing key: the secret's text, or a secret `KeyObject` of its UTF-8 bytes
 * (`webhookKey`), which a sender that signs many messages with one secret makes once.
 */
export type WebhookKey = string | KeyObject;

/** The secret's UTF-8 bytes as a secret `KeyObject` for `createHmac` (see WebhookKey). */
export function webhookKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the UTF-8 bytes of `key`. */
export function standardWebhookSignature(key: WebhookKey, id: string, timestampSeconds: number, body: Bytes): string {
  // A string key is taken as its UTF-8 bytes, as Buffer.from(key, 'utf8') would give.
  const mac = createHmac('sha256', key);
  // One update of a string body (the usual case) costs less than two.
  if (typeof body === 'string') mac.update(`${id}.${timestampSeconds}.${body}`);
  else mac.update(`${id}.${timestampSeconds}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The signature header over several keys, space-separated in the order given (`v1,<new> v1,<old>`
 * during a secret rotation's overlap); one key gives one entry.
 */
export function standardWebhookSignatures(keys: WebhookKey | readonly WebhookKey[], id: string, timestampSeconds: number, body: Bytes): string {
  if (!Array.isArray(keys)) return standardWebhookSignature(keys as WebhookKey, id, timestampSeconds, body);
  return (keys as readonly WebhookKey[]).map((key) => standardWebhookSignature(key, id, timestampSeconds, body)).join(' ');
}

/**
 * The three Standard Webhooks headers. With `into`, they are added to that object (after the
 * headers it holds) and it is returned: no intermediate object for a sender that has its own.
 * Several keys (the current secret first, then the previous one during an overlap) sign with each.
 */
export function standardWebhookHeaders<T extends Record<string, string> = Record<never, string>>(
  key: WebhookKey | readonly WebhookKey[],
  id: string,
  timestampSeconds: number,
  body: Bytes,
  into?: T,
): T & StandardWebhookHeaders {
  const headers = (into ?? {}) as T & StandardWebhookHeaders;
  headers['webhook-id'] = id;
  headers['webhook-timestamp'] = String(timestampSeconds);
  headers['webhook-signature'] = standardWebhookSignatures(key, id, timestampSeconds, body);
  return headers;
}

export interface VerifyWebhookOptions {
  /** Current time in seconds; pass it in so verification is testable. */
  nowSeconds: number;
  /** Allowed clock difference in seconds (default 300). */
  toleranceSeconds?: number;
}

/**
 * Verifies Standard Webhooks headers. The signature header may hold several space-separated
 * `v1,<sig>` entries (during key rotation); any match is accepted.
 */
export function verifyStandardWebhook(
  key: string,
  headers: Partial<Record<keyof StandardWebhookHeaders, string | undefined>>,
  body: Bytes,
  options: VerifyWebhookOptions,
): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  const timestamp = Number(ts);
  if (Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = standardWebhookSignature(key, id, timestamp, body);
  let ok = false;
  for (const candidate of sigs.split(' ')) {
    if (candidate && constantTimeEqual(candidate, expected)) ok = true;
  }
  return ok;
}
