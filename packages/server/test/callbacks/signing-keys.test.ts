/**
 * A rule's signing keys (record-signing.ts): made once per rule object and secret, signing the
 * same bytes as the secret's text; a rotated rule (another object, or the same one with another
 * secret) signs with the new key at once; during an overlap both keys sign, until its end.
 */
import { describe, expect, it } from 'vitest';
import { callbackSecurity, standardWebhookSignature } from '@parley/protocol';
import { ruleSigningKeys, signedRequest, signingKeys } from '../../src/modules/callbacks/record-signing.js';
import type { UnsignedRecord } from '../../src/modules/callbacks/record.js';

const T = 1_893_456_000_000;
const record = (callId: string): UnsignedRecord =>
  ({ callId, eventType: 'chat', timestamp: T - 5, chat_type: 'chat', from: 'a', to: 'b', msg_id: '1', payload: { bodies: [{ type: 'txt', msg: 'hi' }], ext: {} }, securityVersion: '1.0' }) as UnsignedRecord;
const signature = (request: { headers: Record<string, string> }) => request.headers['webhook-signature'];
const expected = (secret: string, callId: string, body: string, nowMs = T) => standardWebhookSignature(secret, callId, Math.floor(nowMs / 1000), body);

describe("a rule's signing keys", () => {
  it('sign the same bytes and headers as the secret as text, with and without a previous secret', () => {
    const r = record('org#app_1');
    expect(signedRequest(r, signingKeys('s3cret'), T)).toEqual(signedRequest(r, 's3cret', T));
    expect(signedRequest(r, signingKeys('new-one', { previous: 'old-one', until: T + 1 }), T)).toEqual(signedRequest(r, 'new-one', T, 'old-one'));
  });

  it('are made once per rule object and secret', () => {
    const rule = { secret: 'first-secret', previousSecret: null };
    const keys = ruleSigningKeys(rule);
    expect(ruleSigningKeys(rule)).toBe(keys);
    expect(ruleSigningKeys({ ...rule })).not.toBe(keys);
  });

  it('follow a rotation at once: a rule read again, or the same object with another secret, signs with the new key', () => {
    const rule: { secret: string; previousSecret: null } = { secret: 'before-rotation', previousSecret: null };
    const r = record('org#app_2');
    const before = signedRequest(r, ruleSigningKeys(rule), T);
    expect(signature(before)).toBe(expected('before-rotation', r.callId, before.body));

    const reread = { secret: 'after-rotation', previousSecret: null };
    const after = signedRequest(r, ruleSigningKeys(reread), T);
    expect(signature(after)).toBe(expected('after-rotation', r.callId, after.body));
    expect(JSON.parse(after.body).security).toBe(callbackSecurity(r.callId, 'after-rotation', r.timestamp));

    rule.secret = 'changed-in-place';
    const changed = signedRequest(r, ruleSigningKeys(rule), T);
    expect(signature(changed)).toBe(expected('changed-in-place', r.callId, changed.body));
  });

  it('sign with both keys during an overlap, the new first and security by the new secret, then with the new one only', () => {
    const rule = { secret: 'fresh-secret', previousSecret: { previous: 'old-secret', until: T + 60_000 } };
    const r = record('org#app_3');
    const during = signedRequest(r, ruleSigningKeys(rule), T);
    expect(signature(during)).toBe(`${expected('fresh-secret', r.callId, during.body)} ${expected('old-secret', r.callId, during.body)}`);
    expect(JSON.parse(during.body).security).toBe(callbackSecurity(r.callId, 'fresh-secret', r.timestamp));

    // Same rule object, same cached keys: the overlap's end is read at signing time.
    const ended = signedRequest(r, ruleSigningKeys(rule), T + 60_000);
    expect(signature(ended)).toBe(expected('fresh-secret', r.callId, ended.body, T + 60_000));

    // An overlap ended early (DELETE …/secret/previous) on a rule read again: one signature at once.
    const early = signedRequest(r, ruleSigningKeys({ ...rule, previousSecret: null }), T);
    expect(signature(early)).toBe(expected('fresh-secret', r.callId, early.body));
  });
});
