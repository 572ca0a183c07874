import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHmacAuthorization, verifySendMessage } from '@parley/protocol';
import { ChannelClient, parsePush, standardWebhookHeaders, verifyPush, WebhookVerificationError } from '../src/index.js';

const secret = '6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5';

describe('ChannelClient: receipts, typing and ratings, signed as the send-message API', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ path: string; body: string; valid: boolean }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const auth = parseHmacAuthorization(req.headers.authorization);
        const valid = !!auth && verifySendMessage(secret, { method: 'POST', path: req.url!, expires: req.headers['x-auth-expires'] as string, body }, auth.signature);
        seen.push({ path: req.url!, body, valid });
        res.setHeader('content-type', 'application/json');
        if (req.url!.endsWith('/ratings')) return res.writeHead(409).end(JSON.stringify({ status: 'FAIL', errorCode: 'conversation_state', errorDescription: 'not closed', requestId: 'r9' }));
        res.end(JSON.stringify({ status: 'OK', entity: req.url!.endsWith('/receipts') ? { updated: 2 } : { conversation_id: 5 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('signs each call over its own path and body', async () => {
    const client = new ChannelClient({ baseUrl: base, tenantId: 1, channelId: 2, clientId: 'cid', clientSecret: secret });
    expect(await client.sendReceipts('c1', ['m1', 'm2'], 'read')).toEqual({ updated: 2 });
    expect(await client.sendTyping('c1')).toEqual({ conversation_id: 5 });
    await expect(client.rate({ from: 'c1', conversation_id: 5, score: 5 })).rejects.toMatchObject({ status: 409, errorCode: 'conversation_state', requestId: 'r9' });
    expect(seen).toEqual([
      { path: '/api/tenants/1/rest/channels/2/receipts', body: '{"to":"c1","msg_ids":["m1","m2"],"status":"read"}', valid: true },
      { path: '/api/tenants/1/rest/channels/2/typing', body: '{"from":"c1"}', valid: true },
      { path: '/api/tenants/1/rest/channels/2/ratings', body: '{"from":"c1","conversation_id":5,"score":5}', valid: true },
    ]);
  });
});

describe('parsing pushes', () => {
  const event = '{"event":"queued","to":"c1","tenant_id":1,"channel_id":2,"conversation_id":3,"timestamp":1000,"position":2,"estimated_wait_seconds":null}';
  const reply = '{"bodies":[{"type":"txt","msg":"Welcome!"}],"ext":{"msg_id":"m","visitor":{},"agent":{"avatar":null,"user_nickname":""},"queue_id":null,"queue_name":"","agent_username":"","system":true},"to":"c1","channel_type":"rest","tenant_id":1,"origin_type":"rest","channel_id":2}';

  it('tells events from replies, and automatic replies from agents\' ones', () => {
    expect(parsePush(event)).toEqual({ kind: 'event', event: JSON.parse(event) });
    const parsed = parsePush(new TextEncoder().encode(reply));
    expect(parsed.kind === 'reply' && parsed.system).toBe(true);
    expect(() => parsePush('{"event":"teleported"}')).toThrow(WebhookVerificationError);
    expect(() => parsePush('[1]')).toThrow(WebhookVerificationError);
  });

  it('verifies the signature before parsing', () => {
    const headers = standardWebhookHeaders(secret, 'dlv_1', 1000, event);
    expect(verifyPush({ clientSecret: secret, headers: { ...headers }, body: event, nowSeconds: 1000 })).toMatchObject({ deliveryId: 'dlv_1', kind: 'event', event: { event: 'queued', position: 2 } });
    expect(() => verifyPush({ clientSecret: secret, headers: { ...headers }, body: event.replace('c1', 'c2'), nowSeconds: 1000 })).toThrow(WebhookVerificationError);
  });
});
