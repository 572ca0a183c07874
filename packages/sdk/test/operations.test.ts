/**
 * verifyOperatorEvent (contract 6.7): the Standard Webhooks signature keyed with the operations
 * secret's UTF-8 bytes, then the body's shape. The server's suites check it against real sends
 * (packages/server/test/operations/).
 */
import { describe, expect, it } from 'vitest';
import { parseOperatorEvent, standardWebhookHeaders, verifyOperatorEvent, WebhookVerificationError } from '../src/index.js';

const SECRET = 'ops-secret-0123456789';
const NOW = 1_893_455_999;
const body = JSON.stringify({ type: 'rule.unbanned', timestamp: NOW * 1000, data: { rule: 'main', ban_count: 1 } });

describe('verifyOperatorEvent', () => {
  it('answers the event and its id when the secret signed it, with headers in any case', () => {
    const headers = standardWebhookHeaders(SECRET, 'evt-1', NOW, body);
    const got = verifyOperatorEvent({ secret: SECRET, headers: { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] }, body: Buffer.from(body), nowSeconds: NOW });
    expect(got).toEqual({ eventId: 'evt-1', event: { type: 'rule.unbanned', timestamp: NOW * 1000, data: { rule: 'main', ban_count: 1 } } });
    // Either of two secrets, while moving from one to the other.
    expect(verifyOperatorEvent({ secret: ['another-secret-xyz', SECRET], headers: { ...headers }, body, nowSeconds: NOW }).eventId).toBe('evt-1');
  });

  it('refuses another secret, a changed body and a stale timestamp', () => {
    const headers = { ...standardWebhookHeaders(SECRET, 'evt-1', NOW, body) };
    expect(() => verifyOperatorEvent({ secret: 'wrong-secret-0123456', headers, body, nowSeconds: NOW })).toThrow(WebhookVerificationError);
    expect(() => verifyOperatorEvent({ secret: SECRET, headers, body: body.replace('main', 'other'), nowSeconds: NOW })).toThrow(WebhookVerificationError);
    expect(() => verifyOperatorEvent({ secret: SECRET, headers, body, nowSeconds: NOW + 301 })).toThrow(WebhookVerificationError);
  });

  it('refuses a signed body that is not an operator event', () => {
    for (const other of ['not json', '{"type":"rule.deleted","timestamp":1,"data":{}}', '{"type":"rule.banned","data":{}}', '[]']) {
      expect(() => parseOperatorEvent(other), other).toThrow(WebhookVerificationError);
      const headers = { ...standardWebhookHeaders(SECRET, 'evt-2', NOW, other) };
      expect(() => verifyOperatorEvent({ secret: SECRET, headers, body: other, nowSeconds: NOW }), other).toThrow(WebhookVerificationError);
    }
  });
});
