import { describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, standardWebhookHeaders } from '@parley/protocol';
import type { CallbackVerificationError} from '../src/callbacks.js';
import { verifyCallback } from '../src/callbacks.js';
import { loadCallbackVectors } from '../../protocol/test/callback-vectors.js';

const NOW = 1_893_455_940;

/** As Parley signs: `security` with `secret`, the Standard Webhooks signature with each of `keys` (a rotation's overlap: new, old). */
function signed(secret: string, over: Record<string, unknown> = {}, keys: string | string[] = secret) {
  const [v] = loadCallbackVectors().callback_security;
  const record = {
    callId: v!.callId,
    eventType: 'chat',
    timestamp: v!.timestamp,
    chat_type: 'chat',
    from: 'alice',
    to: 'bob',
    msg_id: '1',
    payload: { bodies: [{ type: 'txt', msg: '好' }], ext: {} },
    securityVersion: '1.0.0',
    security: callbackSecurity(v!.callId, secret, v!.timestamp),
    ...over,
  };
  const body = JSON.stringify(record);
  return { body, headers: { 'X-Callback-Body-MD5': md5Hex(body), ...standardWebhookHeaders(keys, record.callId, NOW, body) } };
}

const failedCheck = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as CallbackVerificationError).check;
  }
  return 'none';
};

describe('verifyCallback', () => {
  it('accepts a record signed like Parley signs it (vector secret), as text or bytes', () => {
    const { body, headers } = signed('cb-secret-42');
    expect(JSON.parse(body).security).toBe(loadCallbackVectors().callback_security[0]?.security);
    expect(verifyCallback({ secret: 'cb-secret-42', headers, body, nowSeconds: NOW }).callId).toBe('acme#shop_1b4e28ba-2fa1-41d2-883f-0016d3cca427');
    expect(verifyCallback({ secret: 'cb-secret-42', headers, body: new TextEncoder().encode(body), nowSeconds: NOW }).eventType).toBe('chat');
  });
  it('names the check that failed', () => {
    const { body, headers } = signed('cb-secret-42');
    expect(failedCheck(() => verifyCallback({ secret: 'other', headers, body, nowSeconds: NOW }))).toBe('security');
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers, body: body.replace('好', '坏'), nowSeconds: NOW }))).toBe('body_md5');
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers, body, nowSeconds: NOW + 301 }))).toBe('webhook_signature');
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers: { ...headers, 'webhook-signature': 'v1,AAAA' }, body, nowSeconds: NOW }))).toBe('webhook_signature');
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers, body: 'nope', nowSeconds: NOW }))).toBe('json');
  });
  it('accepts either secret during a rotation overlap (v1,<new> v1,<old>, security by the new one), and neither after it', () => {
    const { body, headers } = signed('new-secret', {}, ['new-secret', 'cb-secret-42']);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyCallback({ secret: 'new-secret', headers, body, nowSeconds: NOW }).eventType).toBe('chat');
    expect(verifyCallback({ secret: 'cb-secret-42', headers, body, nowSeconds: NOW }).eventType).toBe('chat');
    expect(verifyCallback({ secret: ['new-secret', 'cb-secret-42'], headers, body, nowSeconds: NOW }).eventType).toBe('chat');
    expect(verifyCallback({ secret: ['cb-secret-42', 'new-secret'], headers, body, nowSeconds: NOW }).eventType).toBe('chat');
    expect(failedCheck(() => verifyCallback({ secret: 'other', headers, body, nowSeconds: NOW }))).toBe('security');
    // The old secret's own signature must hold: tampering with the body fails it even though security is not its own.
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers, body: body.replace('"bob"', '"eve"'), nowSeconds: NOW }))).toBe('security');
    // After the overlap only the new secret signs: the old one no longer verifies.
    const after = signed('new-secret');
    expect(failedCheck(() => verifyCallback({ secret: 'cb-secret-42', headers: after.headers, body: after.body, nowSeconds: NOW }))).toBe('security');
    expect(verifyCallback({ secret: ['new-secret', 'cb-secret-42'], headers: after.headers, body: after.body, nowSeconds: NOW }).eventType).toBe('chat');
  });
});
