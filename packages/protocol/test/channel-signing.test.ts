import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  md5Hex,
  parseHmacAuthorization,
  sendMessageAuthorization,
  sendMessageKey,
  sendMessageStringToSign,
  signSendMessage,
  standardWebhookHeaders,
  verifySendMessage,
  verifyStandardWebhook,
} from '../src/index.js';
import { loadVectors } from './vectors.js';

const vectors = loadVectors();

describe('send-message HMAC (spec 5.1) against shared vectors', () => {
  it('has vectors to check', () => expect(vectors.hmac_send_message.length).toBeGreaterThan(0));

  it.each(vectors.hmac_send_message.map((v, i) => [i, v] as const))('vector %i: md5, string to sign, signature, header', (_i, v) => {
    const input = { method: v.method, path: v.path, expires: v.xAuthExpires, body: v.body };
    expect(md5Hex(v.body)).toBe(v.md5);
    expect(sendMessageStringToSign(input)).toBe(v.stringToSign);
    expect(signSendMessage(v.clientSecret, input)).toBe(v.signature);
    expect(sendMessageAuthorization(v.clientId, v.signature)).toBe(v.authorization);
    expect(parseHmacAuthorization(v.authorization)).toEqual({ clientId: v.clientId, signature: v.signature });
    expect(verifySendMessage(v.clientSecret, input, v.signature)).toBe(true);
  });

  it('rejects a signature over a body that differs by one byte, or under another secret', () => {
    const v = vectors.hmac_send_message[0]!;
    const input = { method: v.method, path: v.path, expires: v.xAuthExpires, body: v.body };
    expect(verifySendMessage(v.clientSecret, { ...input, body: `${v.body} ` }, v.signature)).toBe(false);
    expect(verifySendMessage('0'.repeat(32), input, v.signature)).toBe(false);
    expect(verifySendMessage(v.clientSecret, { ...input, expires: v.xAuthExpires + 1 }, v.signature)).toBe(false);
  });

  it.each(vectors.hmac_send_message.map((v, i) => [i, v] as const))('vector %i: a prepared key signs and verifies as its text does', (_i, v) => {
    const input = { method: v.method, path: v.path, expires: v.xAuthExpires, body: v.body };
    const key = sendMessageKey(v.clientSecret);
    expect(signSendMessage(key, input)).toBe(v.signature);
    expect(verifySendMessage(key, input, v.signature)).toBe(true);
    expect(verifySendMessage(key, { ...input, body: `${v.body} ` }, v.signature)).toBe(false);
    expect(verifySendMessage(sendMessageKey('0'.repeat(32)), input, v.signature)).toBe(false);
  });

  it('a key made once signs as its text does for keys of every length class and long messages', () => {
    const keys = ['', 'k', '6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5', 'x'.repeat(64), 'y'.repeat(65), 'clé-secrète-'.repeat(8)];
    const bodies = ['', 'abc', 'é€😀'.repeat(50), 'z'.repeat(5_000)];
    for (const key of keys) {
      for (const body of bodies) {
        const input = { method: 'POST', path: '/p', expires: -1, body };
        expect(signSendMessage(sendMessageKey(key), input), `key of ${key.length} chars, body of ${body.length}`).toBe(
          createHmac('sha256', Buffer.from(key, 'utf8')).update(sendMessageStringToSign(input)).digest('base64'),
        );
      }
    }
  });

  it('signs the exact UTF-8 bytes: a Buffer body gives the same signature as its text', () => {
    const v = vectors.hmac_send_message[0]!;
    expect(signSendMessage(v.clientSecret, { method: v.method, path: v.path, expires: v.xAuthExpires, body: Buffer.from(v.body, 'utf8') })).toBe(v.signature);
  });
});

describe('Standard Webhooks signature (contract 3.4) against shared vectors', () => {
  it('has vectors to check', () => expect(vectors.standard_webhooks.length).toBeGreaterThan(0));

  it.each(vectors.standard_webhooks.map((v, i) => [i, v] as const))('vector %i: signs and verifies', (_i, v) => {
    const headers = standardWebhookHeaders(v.key, v.id, v.timestamp, v.body);
    expect(headers).toEqual({ 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.signature });
    expect(verifyStandardWebhook(v.key, headers, v.body, { nowSeconds: v.timestamp + 10 })).toBe(true);
  });

  it('adds the headers to a given object, after the ones it holds, and returns it', () => {
    const v = vectors.standard_webhooks[0]!;
    const own = { 'content-type': 'application/json' };
    const headers = standardWebhookHeaders(v.key, v.id, v.timestamp, v.body, own);
    expect(headers).toBe(own);
    expect(Object.entries(headers)).toEqual([
      ['content-type', 'application/json'],
      ['webhook-id', v.id],
      ['webhook-timestamp', String(v.timestamp)],
      ['webhook-signature', v.signature],
    ]);
  });

  it('refuses a tampered body, a wrong id, or a stale timestamp', () => {
    const v = vectors.standard_webhooks[0]!;
    const headers = standardWebhookHeaders(v.key, v.id, v.timestamp, v.body);
    expect(verifyStandardWebhook(v.key, headers, v.body.replace('c42', 'c43'), { nowSeconds: v.timestamp })).toBe(false);
    expect(verifyStandardWebhook(v.key, { ...headers, 'webhook-id': 'dlv_02' }, v.body, { nowSeconds: v.timestamp })).toBe(false);
    expect(verifyStandardWebhook(v.key, headers, v.body, { nowSeconds: v.timestamp + 301 })).toBe(false);
  });

  it('accepts any of several space-separated signatures (key rotation)', () => {
    const v = vectors.standard_webhooks[0]!;
    const headers = { 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': `v1,AAAA ${v.signature}` };
    expect(verifyStandardWebhook(v.key, headers, v.body, { nowSeconds: v.timestamp })).toBe(true);
  });

  it('signs with several keys in the order given, each entry verifying with its own key (rotation overlap)', () => {
    const v = vectors.standard_webhooks[0]!;
    const headers = standardWebhookHeaders(['new-secret', v.key], v.id, v.timestamp, v.body);
    const [first, second, ...rest] = headers['webhook-signature'].split(' ');
    expect(rest).toEqual([]);
    expect(second).toBe(v.signature);
    expect(first).toBe(standardWebhookHeaders('new-secret', v.id, v.timestamp, v.body)['webhook-signature']);
    expect(verifyStandardWebhook('new-secret', headers, v.body, { nowSeconds: v.timestamp })).toBe(true);
    expect(verifyStandardWebhook(v.key, headers, v.body, { nowSeconds: v.timestamp })).toBe(true);
    expect(verifyStandardWebhook('neither', headers, v.body, { nowSeconds: v.timestamp })).toBe(false);
    expect(standardWebhookHeaders([v.key], v.id, v.timestamp, v.body)['webhook-signature']).toBe(v.signature);
  });
});
