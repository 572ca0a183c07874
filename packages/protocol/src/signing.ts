/**
 * Signatures used on Parley's wire:
 * - the send-message HMAC (spec 5.1) that a customer's server puts on every request,
 * - the post-send callback `security` field (spec 5.2, contract 4.5),
 * - the Standard Webhooks signature on outbound pushes and callbacks (contract 3.4, 4.5).
 *
 * Pure functions over node:crypto; no I/O.
 */
import * as crypto from 'node:crypto';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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

/** SHA-256's block size in bytes: an HMAC key is padded (or first hashed) to it. */
const SHA256_BLOCK = 64;
/** Where a prepared key's inner block and the message are put together (grown when too small). */
let innerScratch = Buffer.allocUnsafeSlow(1024);

/**
 * An HMAC-SHA256 key prepared once (RFC 2104): the key's inner and outer padded blocks. A server
 * that checks many requests under one secret keeps it: each MAC is then two one-shot SHA-256
 * hashes over buffers that are reused, without OpenSSL's per-MAC context set-up or a native
 * `Hmac` object for the garbage collector to finalise. Where
 * `crypto.hash` is missing (Node before 20.12) it falls back on `createHmac`.
 */
export class PreparedHmacKey {
  /** The key XOR ipad. */
  readonly #inner: Buffer;
  /** The key XOR opad, then room for the inner digest: the outer hash's whole input. */
  readonly #outer: Buffer;
  readonly #key: Buffer;

  constructor(key: Bytes) {
    let bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
    if (bytes.length > SHA256_BLOCK) bytes = createHash('sha256').update(bytes).digest();
    this.#key = bytes;
    // The block is the key padded with zeros: XOR-ing a zero with the pad leaves the pad.
    const padded = (pad: number, room: number) => {
      const block = Buffer.alloc(SHA256_BLOCK + room, 0);
      block.fill(pad, 0, SHA256_BLOCK);
      bytes.forEach((byte, i) => {
        block[i] = byte ^ pad;
      });
      return block;
    };
    this.#inner = padded(0x36, 0);
    this.#outer = padded(0x5c, 32);
  }

  /** Base64 of the HMAC-SHA256 of the message's UTF-8 bytes. */
  base64(message: string): string {
    if (!oneShotHash) return createHmac('sha256', this.#key).update(message).digest('base64');
    const length = SHA256_BLOCK + Buffer.byteLength(message, 'utf8');
    if (length > innerScratch.length) innerScratch = Buffer.allocUnsafeSlow(2 * length);
    this.#inner.copy(innerScratch, 0);
    innerScratch.write(message, SHA256_BLOCK, 'utf8');
    // The inner digest as a one-byte string, written straight after the outer block: no Buffer per MAC.
    this.#outer.write(oneShotHash('sha256', innerScratch.subarray(0, length), 'binary'), SHA256_BLOCK, 'latin1');
    return oneShotHash('sha256', this.#outer, 'base64');
  }
}

/**
 * The Client Secret as an HMAC key: its text, or the key `sendMessageKey` prepared from it. A
 * server that checks many requests under one secret keeps the prepared key.
 */
export type SendMessageKey = string | PreparedHmacKey;

/** The Client Secret's UTF-8 bytes as a prepared HMAC key (see SendMessageKey). */
export function sendMessageKey(clientSecret: string): PreparedHmacKey {
  return new PreparedHmacKey(clientSecret);
}

/** Base64 of the raw HMAC-SHA256 of the string to sign, keyed with the Client Secret. */
export function signSendMessage(clientSecret: SendMessageKey, input: SendMessageSigningInput): string {
  const toSign = sendMessageStringToSign(input);
  if (clientSecret instanceof PreparedHmacKey) return clientSecret.base64(toSign);
  return createHmac('sha256', clientSecret).update(toSign).digest('base64');
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

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the UTF-8 bytes of `key`. */
export function standardWebhookSignature(key: string, id: string, timestampSeconds: number, body: Bytes): string {
  // A string key is taken as its UTF-8 bytes, as Buffer.from(key, 'utf8') would give.
  const mac = createHmac('sha256', key);
  // One update of a string body (the usual case) costs less than two.
  if (typeof body === 'string') mac.update(`${id}.${timestampSeconds}.${body}`);
  else mac.update(`${id}.${timestampSeconds}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The three Standard Webhooks headers. With `into`, they are added to that object (after the
 * headers it holds) and it is returned: no intermediate object for a sender that has its own.
 */
export function standardWebhookHeaders<T extends Record<string, string> = Record<never, string>>(
  key: string,
  id: string,
  timestampSeconds: number,
  body: Bytes,
  into?: T,
): T & StandardWebhookHeaders {
  const headers = (into ?? {}) as T & StandardWebhookHeaders;
  headers['webhook-id'] = id;
  headers['webhook-timestamp'] = String(timestampSeconds);
  headers['webhook-signature'] = standardWebhookSignature(key, id, timestampSeconds, body);
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
