/**
 * Verifying a post-send callback (contract 4.5) on the application server. Pass the body exactly
 * as received (bytes or text), before any JSON parsing, and the rule's secret.
 *
 * Three checks, all constant-time: the `security` field (md5 of callId + secret + timestamp), the
 * `X-Callback-Body-MD5` header over the exact body, and the Standard Webhooks signature (which
 * also bounds the age of the request). `security` alone does not cover the body; the Standard
 * Webhooks signature does.
 *
 * Secret rotation (contract 6.6): during an overlap Parley signs with both secrets
 * (`webhook-signature: v1,<new> v1,<old>`) and computes `security` with the new one. Pass both
 * secrets while rotating (`secret: [new, old]`); a receiver that still holds only the old secret
 * is accepted on the Standard Webhooks signature, which covers the whole body, `security` included.
 */
import {
  CALLBACK_BODY_MD5_HEADER,
  constantTimeEqual,
  md5Hex,
  verifyCallbackSecurity,
  type CallbackRecord,
} from '@parley/protocol';
import { headerOf, signedByAny } from './signed-request.js';

export interface VerifyCallbackInput {
  /** The callback rule's secret, or several (the new and the old one while a rotation overlaps). */
  secret: string | readonly string[];
  /** Request headers (any case), e.g. `req.headers` of node:http. */
  headers: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
  /** Allowed clock difference for `webhook-timestamp`, seconds (default 300). */
  toleranceSeconds?: number;
  nowSeconds?: number;
}

export type CallbackCheck = 'json' | 'security' | 'body_md5' | 'webhook_signature';

/** What every callback record has for its checks. */
export interface SignedRecord {
  callId: string;
  timestamp: number;
  security: string;
}

export class CallbackVerificationError extends Error {
  override name = 'CallbackVerificationError';
  constructor(
    readonly check: CallbackCheck,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Returns the record when every check holds; throws CallbackVerificationError naming the failed
 * check. A message record by default; a rule that lists the event catalogue's types also gets
 * their records (`verifyCallback<CallbackRecord | CatalogueCallbackRecord>(…)`), checked the same way.
 */
export function verifyCallback<R extends SignedRecord = CallbackRecord>(input: VerifyCallbackInput): R {
  const text = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  let record: R;
  try {
    record = JSON.parse(text) as R;
  } catch {
    throw new CallbackVerificationError('json', 'the body is not JSON');
  }
  if (typeof record?.callId !== 'string' || typeof record.timestamp !== 'number' || typeof record.security !== 'string') {
    throw new CallbackVerificationError('json', 'the body is not a callback record');
  }
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  const signed = signedByAny({ secrets, headers: input.headers, body: input.body, nowSeconds: input.nowSeconds, toleranceSeconds: input.toleranceSeconds });
  const securityOk = secrets.some((secret) => verifyCallbackSecurity(record.callId, secret, record.timestamp, record.security));
  // During an overlap `security` is keyed with the new secret only; the old one proves itself by its signature.
  const overlapping = (headerOf(input.headers, 'webhook-signature') ?? '').split(' ').filter(Boolean).length > 1;
  if (!securityOk && !(overlapping && signed)) {
    throw new CallbackVerificationError('security', 'security does not match callId, secret and timestamp');
  }
  const md5 = headerOf(input.headers, CALLBACK_BODY_MD5_HEADER);
  if (!md5 || !constantTimeEqual(md5.toLowerCase(), md5Hex(input.body))) {
    throw new CallbackVerificationError('body_md5', `${CALLBACK_BODY_MD5_HEADER} is missing or does not match the body`);
  }
  if (!signed) throw new CallbackVerificationError('webhook_signature', 'webhook signature is missing, stale or does not match');
  if (headerOf(input.headers, 'webhook-id') !== record.callId) {
    throw new CallbackVerificationError('webhook_signature', 'webhook-id differs from callId');
  }
  return record;
}
