/**
 * A test record sent to a rule on request, on both engines with a real receiver: the answer
 * holds the exact signed strings (their MD5 and HMAC are the request's signatures), the headers
 * and body the receiver got byte for byte, and the receiver's answer or the failure.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { md5Hex } from '@parley/protocol';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('callback test record on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);

  beforeEach(async () => {
    t = await createTestApp(engine, { env: { PARLEY_CALLBACK_TIMEOUT_MS: '300' } });
    im = await createImApp(t.app);
    receiver = await CallbackReceiver.start();
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('answers the exact signed strings, the request and the receiver answer', async () => {
    const rule = (await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url })).body.data as { secret: string };
    receiver.respond = () => ({ status: 200, body: 'pong' });
    const res = await api('POST', '/callbacks/rules/main/test');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/callbacks/rules/main/test', action: 'post' });
    const data = res.body.data as {
      url: string;
      signed: { security: string; webhook: string };
      headers: Record<string, string>;
      body: string;
      response: { status: number; body: string; error: string | null };
    };
    const [got] = receiver.requests;
    expect(got?.body).toBe(data.body);
    expect(got?.headers['webhook-signature']).toBe(data.headers['webhook-signature']);
    const record = JSON.parse(data.body) as { callId: string; timestamp: number; security: string; eventType: string; payload: unknown };
    expect(record).toMatchObject({ eventType: 'chat', from: 'parley_test', payload: { bodies: [{ type: 'txt', msg: 'Parley test record' }], ext: { parley_test: true } } });
    expect(data.signed.security).toBe(`${record.callId}${rule.secret}${record.timestamp}`);
    expect(md5Hex(data.signed.security)).toBe(record.security);
    expect(data.signed.webhook).toBe(`${record.callId}.${data.headers['webhook-timestamp']}.${data.body}`);
    expect(`v1,${createHmac('sha256', rule.secret).update(data.signed.webhook).digest('base64')}`).toBe(data.headers['webhook-signature']);
    expect(data.headers['x-callback-body-md5']).toBe(md5Hex(data.body));
    expect(data.url).toBe(receiver.url);
    expect(data.response).toMatchObject({ status: 200, body: 'pong', error: null });
  });

  it('reports a receiver that does not answer, and 404 for an unknown rule; nothing is stored', async () => {
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: true });
    await api('POST', '/callbacks/rules', { name: 'main', url: receiver.url });
    receiver.respond = () => 'hang';
    const res = await api('POST', '/callbacks/rules/main/test');
    expect(res.status).toBe(200);
    expect(res.body.data.response).toMatchObject({ status: null, error: expect.stringMatching(/^timeout/) });
    expect((await api('GET', '/callbacks/storage/info')).body.data).toEqual([]);
    expect((await api('POST', '/callbacks/rules/nope/test')).status).toBe(404);
  });
});
