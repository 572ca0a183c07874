/**
 * Where a callback record is signed (spec 2.4, contract 4.5): the exact bytes and headers of one
 * POST of a record to a rule's URL. Pure: the secret and the time are passed in.
 */
import { CALLBACK_BODY_MD5_HEADER, callbackSecurity, md5Hex, standardWebhookHeaders } from '@parley/protocol';
import type { UnsignedRecord } from './record.js';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The exact bytes and headers of one POST: `security` with the rule's secret, the body MD5 and
 * the Standard Webhooks headers (`webhook-id` = callId, timestamp in seconds at send time).
 * `previous`, the secret before a rotation while its overlap runs (contract 6.6), adds a second
 * signature (`v1,<new> v1,<old>`); `security` always uses the current secret.
 */
export function signedRequest(record: UnsignedRecord, secret: string, nowMs: number, previous?: string): SignedRequest {
  const body = signedBody(record, callbackSecurity(record.callId, secret, record.timestamp));
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', [CALLBACK_BODY_MD5_HEADER]: md5Hex(body) };
  const keys = previous === undefined ? secret : [secret, previous];
  return { body, headers: standardWebhookHeaders(keys, record.callId, Math.floor(nowMs / 1000), body, headers) };
}

/**
 * The JSON of `{ ...record, security }`, byte for byte: the record's JSON with `security` added
 * as its last member, without copying the record into a new object first (once per attempt).
 * A record has no `security` of its own (UnsignedRecord omits it); one read back from storage
 * with one anyway takes the copy, so that the member is replaced rather than written twice.
 */
export function signedBody(record: UnsignedRecord, security: string): string {
  if (Object.hasOwn(record, 'security')) return JSON.stringify({ ...record, security });
  const json = JSON.stringify(record);
  const member = `"security":${JSON.stringify(security)}`;
  return json === '{}' ? `{${member}}` : `${json.slice(0, -1)},${member}}`;
}
