import { describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, standardWebhookHeaders } from '@parley/protocol';
import type { CallbackVerificationError} from '../src/callbacks.js';
import { verifyCallback } from '../src/callbacks.js';
import { loadCallbackVectors } from '../../protocol/test/callback-vectors.js';

const NOW = 1_893_455_940;

function signed(secret: string, over: Record<string, unknown> = {}) {
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
  return { body, headers: { 'X-Callback-Body-MD5': md5Hex(body), ...standardWebhookHeaders(secret, record.callId, NOW, body) } };
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
});
