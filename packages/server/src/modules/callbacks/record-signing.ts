/**
 * Where a callback record is signed (spec 2.4, contract 4.5): the exact bytes and headers of one
 * POST of a record to a rule's URL. Pure: the keys and the time are passed in.
 */
import type { KeyObject } from 'node:crypto';
import { callbackSecurity, webhookKey, type WebhookKey } from '@parley/protocol';
import { liveOverlap, type SecretOverlap } from '../../kernel/secret-overlap.js';
import type { UnsignedRecord } from './record.js';
import { signedHeaders, withSecurity, type SignedRequest } from './signed-json.js';

export type { SignedRequest } from './signed-json.js';

/**
 * A rule's secrets ready to sign with: the current secret's text (`security` is an MD5 over it)
 * and its HMAC key, made once rather than from the text at every record, and while a rotation's
 * overlap runs (contract 6.6) the previous secret's key and when the overlap ends.
 */
export interface SigningKeys {
  readonly secret: string;
  readonly key: KeyObject;
  readonly previous: SecretOverlap<KeyObject> | null;
}

export function signingKeys(secret: string, previous?: SecretOverlap<string> | null): SigningKeys {
  return { secret, key: webhookKey(secret), previous: previous ? { previous: webhookKey(previous.previous), until: previous.until } : null };
}

interface KeyedRule {
  readonly secret: string;
  readonly previousSecret?: SecretOverlap<string> | null;
}

/** Each rule object's keys, with the secrets they were made from. */
const keysOfRule = new WeakMap<KeyedRule, { secret: string; previous: string | undefined; until: number | undefined; keys: SigningKeys }>();

/**
 * The keys of `rule`, made once per rule object: a rule read again (after a change, a rotation
 * or a cache refresh) is another object and gets keys of its own, and keys whose secrets no
 * longer match the object's are made again, so a record is never signed with a stale secret.
 */
export function ruleSigningKeys(rule: KeyedRule): SigningKeys {
  const cached = keysOfRule.get(rule);
  const previous = rule.previousSecret ?? null;
  if (cached && cached.secret === rule.secret && cached.previous === previous?.previous && cached.until === previous?.until) return cached.keys;
  const keys = signingKeys(rule.secret, previous);
  keysOfRule.set(rule, { secret: rule.secret, previous: previous?.previous, until: previous?.until, keys });
  return keys;
}

/**
 * The exact bytes and headers of one POST: `security` with the rule's secret, the body MD5 and
 * the Standard Webhooks headers (`webhook-id` = callId, timestamp in seconds at send time).
 * While the previous secret's overlap runs at `nowMs` (contract 6.6), a second signature is
 * added (`v1,<new> v1,<old>`); `security` always uses the current secret. A secret given as
 * text (with `previous` as text) signs the same bytes; keys made once cost less per record.
 */
export function signedRequest(record: UnsignedRecord, keys: SigningKeys | string, nowMs: number, previous?: string): SignedRequest {
  const secret = typeof keys === 'string' ? keys : keys.secret;
  const body = signedBody(record, callbackSecurity(record.callId, secret, record.timestamp));
  return { body, headers: signedHeaders(body, record.callId, webhookKeys(keys, nowMs, previous), nowMs) };
}

function webhookKeys(keys: SigningKeys | string, nowMs: number, previous: string | undefined): WebhookKey | WebhookKey[] {
  if (typeof keys === 'string') return previous === undefined ? keys : [keys, previous];
  const old = liveOverlap(keys.previous, nowMs);
  return old ? [keys.key, old.previous] : keys.key;
}

/**
 * The JSON of `{ ...record, security }`, byte for byte: the record's JSON with `security` added
 * as its last member, without copying the record into a new object first (once per attempt).
 * A record has no `security` of its own (UnsignedRecord omits it); one read back from storage
 * with one anyway takes the copy, so that the member is replaced rather than written twice.
 */
export function signedBody(record: UnsignedRecord, security: string): string {
  if (Object.hasOwn(record, 'security')) return JSON.stringify({ ...record, security });
  return withSecurity(JSON.stringify(record), security);
}
