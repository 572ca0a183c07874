/**
 * examples/callback-receiver/server.mjs, run as its README says: a signed post-send record is
 * answered `ok`; on /presend a message with `spam` is refused with the example's code, one with
 * `darn` is rewritten and any other delivered; on /operations an operator event signed with the
 * operations webhook's secret (checked by the SDK's verifyOperatorEvent) is accepted and printed;
 * a bad signature is a 401 on each path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standardWebhookHeaders, type OperatorEvent } from '@parley/protocol';
import { signedRequest } from '../../src/modules/callbacks/record-signing.js';
import type { UnsignedRecord } from '../../src/modules/callbacks/record.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const SECRETS = { CALLBACK_SECRET: 'rule-secret-0123456789', PRESEND_SECRET: 'presend-secret-0123456789', OPERATIONS_SECRET: 'ops-secret-0123456789' };

let child: ChildProcess;
let origin: string;
let output = '';

beforeAll(async () => {
  child = spawn(process.execPath, [path.join(root, 'examples/callback-receiver/server.mjs')], { cwd: root, env: { ...process.env, ...SECRETS, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  origin = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the example exited with ${code}: ${output}`)));
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /callback receiver on (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (match) resolve(match[1]!);
    });
  });
}, 30_000);
afterAll(() => {
  child?.kill();
});

const record = (msg: string): UnsignedRecord =>
  ({ callId: `org#app_${msg.length}-${Date.now()}`, eventType: 'chat', timestamp: Date.now(), chat_type: 'chat', from: 'alice', to: 'bob', msg_id: '1', payload: { bodies: [{ type: 'txt', msg }], ext: {} }, securityVersion: '1.0.0' }) as UnsignedRecord;

async function post(p: string, headers: Record<string, string>, body: string) {
  const res = await fetch(`${origin}${p}`, { method: 'POST', headers, body });
  return { status: res.status, text: await res.text() };
}
const signed = (p: string, msg: string, secret: string) => {
  const request = signedRequest(record(msg), secret, Date.now());
  return post(p, request.headers, request.body);
};

describe('examples/callback-receiver', () => {
  it('answers a signed post-send record ok, and a badly signed one 401', async () => {
    expect(await signed('/', 'hello', SECRETS.CALLBACK_SECRET)).toEqual({ status: 200, text: 'ok' });
    expect((await signed('/', 'hello', 'another-secret-000000')).status).toBe(401);
  });

  it('is a pre-send handler: refuses spam, masks darn, delivers the rest; 401 for a bad signature', async () => {
    expect(JSON.parse((await signed('/presend', 'buy spam', SECRETS.PRESEND_SECRET)).text)).toEqual({ valid: false, code: 'MSG_BLOCKED: no spam here' });
    expect(JSON.parse((await signed('/presend', 'darn it', SECRETS.PRESEND_SECRET)).text)).toEqual({ valid: true, payload: { bodies: [{ type: 'txt', msg: '**** it' }] } });
    expect(JSON.parse((await signed('/presend', 'hello', SECRETS.PRESEND_SECRET)).text)).toEqual({ valid: true });
    expect((await signed('/presend', 'hello', SECRETS.CALLBACK_SECRET)).status).toBe(401);
  });

  it('verifies operator events with the SDK and prints each once; 401 for a bad signature', async () => {
    const event: OperatorEvent = {
      type: 'rule.banned',
      timestamp: Date.now(),
      data: { rule: 'main', reason: 'failures', ban_count: 1, banned_until: Date.now() + 300_000, last_errors: [{ at: Date.now(), error: 'HTTP 500' }] },
    };
    const body = JSON.stringify(event);
    const sign = (secret: string): Record<string, string> => ({ ...standardWebhookHeaders(secret, 'evt-1', Math.floor(Date.now() / 1000), body, { 'content-type': 'application/json; charset=utf-8' }) });
    expect(await post('/operations', sign(SECRETS.OPERATIONS_SECRET), body)).toEqual({ status: 200, text: 'ok' });
    expect(await post('/operations', sign(SECRETS.OPERATIONS_SECRET), body)).toEqual({ status: 200, text: 'ok' });
    expect((await post('/operations', sign('not-the-ops-secret-00'), body)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(output.match(/operator event rule\.banned: rule main \(failures\) until .*, last error HTTP 500/g)).toHaveLength(1);
  });
});
