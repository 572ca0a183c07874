import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySendMessage, parseHmacAuthorization } from '@parley/protocol';
import { ChannelClient, ParleyApiError, signSendMessageRequest, standardWebhookHeaders, verifyReplyPush, WebhookVerificationError } from '../src/index.js';
import { loadVectors } from '../../protocol/test/vectors.js';

const vectors = loadVectors();

describe('SDK signing', () => {
  it.each(vectors.hmac_send_message.map((v, i) => [i, v] as const))('produces the Authorization of vector %i', (_i, v) => {
    const headers = signSendMessageRequest({ clientId: v.clientId, clientSecret: v.clientSecret, path: v.path, body: v.body, expires: v.xAuthExpires });
    expect(headers.authorization).toBe(v.authorization);
    expect(headers['x-auth-expires']).toBe(String(v.xAuthExpires));
  });

  it('verifies a push of the standard_webhooks vector and refuses a tampered one', () => {
    const v = vectors.standard_webhooks[0]!;
    const headers = standardWebhookHeaders(v.key, v.id, v.timestamp, v.body);
    const ok = verifyReplyPush({ clientSecret: v.key, headers: { 'Webhook-Id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': v.signature }, body: v.body, nowSeconds: v.timestamp });
    expect(ok.deliveryId).toBe(v.id);
    expect(ok.push.to).toBe('c42');
    expect(() => verifyReplyPush({ clientSecret: v.key, headers: { ...headers }, body: v.body.replace('c42', 'c41'), nowSeconds: v.timestamp })).toThrow(WebhookVerificationError);
  });

  it('verifies a push signed during a rotation overlap with either secret, or both given', () => {
    const v = vectors.standard_webhooks[0]!;
    const headers = standardWebhookHeaders(['new-client-secret', v.key], v.id, v.timestamp, v.body);
    for (const clientSecret of ['new-client-secret', v.key, ['new-client-secret', v.key]]) {
      expect(verifyReplyPush({ clientSecret, headers: { ...headers }, body: v.body, nowSeconds: v.timestamp }).deliveryId).toBe(v.id);
    }
    expect(() => verifyReplyPush({ clientSecret: ['neither', 'nor'], headers: { ...headers }, body: v.body, nowSeconds: v.timestamp })).toThrow(WebhookVerificationError);
  });
});

describe('ChannelClient against a stand-in server', () => {
  let server: http.Server;
  let base: string;
  const secret = '6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5';
  let lastBody = '';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        lastBody = Buffer.concat(chunks).toString();
        const auth = parseHmacAuthorization(req.headers.authorization);
        const valid = auth && verifySendMessage(secret, { method: 'POST', path: req.url!, expires: req.headers['x-auth-expires'] as string, body: lastBody }, auth.signature);
        res.setHeader('content-type', 'application/json');
        if (!valid) return res.writeHead(401).end(JSON.stringify({ status: 'FAIL', errorCode: 'invalid_signature', errorDescription: 'bad', requestId: 'r1' }));
        res.end(JSON.stringify({ status: 'OK', entity: { msg_id: JSON.parse(lastBody).msg_id, conversation_id: 7, duplicate: false } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('signs, sends compact JSON and returns the entity', async () => {
    const client = new ChannelClient({ baseUrl: base, tenantId: 1, channelId: 2, clientId: 'cid', clientSecret: secret, now: () => 1000 });
    const result = await client.sendMessage({ from: 'c1', msg_id: 'm1', bodies: [{ type: 'txt', msg: 'hi' }] });
    expect(result).toEqual({ msg_id: 'm1', conversation_id: 7, duplicate: false });
    expect(lastBody).toBe('{"from":"c1","msg_id":"m1","bodies":[{"type":"txt","msg":"hi"}],"origin_type":"rest","timestamp":1000}');
  });

  it('raises ParleyApiError with the stable code on refusal, and checks messages before sending', async () => {
    const client = new ChannelClient({ baseUrl: base, tenantId: 1, channelId: 2, clientId: 'cid', clientSecret: 'wrong' });
    await expect(client.sendMessage({ from: 'c1', bodies: [{ type: 'txt', msg: 'hi' }] })).rejects.toMatchObject({ status: 401, errorCode: 'invalid_signature' });
    await expect(client.sendMessage({ from: 'c1', bodies: [] })).rejects.toBeInstanceOf(ParleyApiError);
  });
});
