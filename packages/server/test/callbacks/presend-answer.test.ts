/**
 * The pre-send callback's pure parts (contract 6.5): what an answer means, the rewrite of a
 * message, the rule's on_failure choice, and the signed record.
 */
import { describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, verifyStandardWebhook } from '@parley/protocol';
import { applyRewrite, decide, readAnswer, refusalText, type Payload } from '../../src/modules/callbacks/presend/answer.js';
import { presendRecord, presendRuleMatches, presendSigning } from '../../src/modules/callbacks/presend/record.js';
import { signedJson } from '../../src/modules/callbacks/signed-json.js';
import type { OutboundResult } from '../../src/modules/outbound/ports.js';
import type { StoredMessage } from '../../src/modules/im/ports.js';

const payload: Payload = { bodies: [{ type: 'txt', msg: 'hello' }], ext: { k: 'v' } };
const ok = (body: string, status = 200): OutboundResult => ({ status, body, bodyTruncated: false, latencyMs: 3 });

describe('pre-send answers', () => {
  it('valid true delivers as it is; valid false rejects with the code', () => {
    expect(readAnswer(ok('{"valid":true}'), payload)).toEqual({ kind: 'deliver' });
    expect(readAnswer(ok('{"valid":true,"payload":null}'), payload)).toEqual({ kind: 'deliver' });
    expect(readAnswer(ok('{"valid":false,"code":"HX:10001"}'), payload)).toEqual({ kind: 'reject', code: 'HX:10001' });
    expect(readAnswer(ok('{"valid":false}'), payload)).toEqual({ kind: 'reject', code: undefined });
  });

  it('a payload rewrites the text of txt bodies and the ext', () => {
    const answer = readAnswer(ok('{"valid":true,"payload":{"bodies":[{"type":"txt","msg":"h***o"}],"ext":{"checked":true}}}'), payload);
    expect(answer).toEqual({ kind: 'rewrite', payload: { bodies: [{ type: 'txt', msg: 'h***o' }], ext: { checked: true } } });
    expect(applyRewrite(payload, { ext: { a: 1 } })).toEqual({ bodies: payload.bodies, ext: { a: 1 } });
    const img: Payload = { bodies: [{ type: 'img', url: 'https://x/a.png', filename: 'a.png' }], ext: {} };
    expect(applyRewrite(img, { bodies: [{ type: 'img', url: 'https://evil/b.png' }] })).toEqual(img);
  });

  it('every malformed answer is a failure with its reason', () => {
    const cases: Array<[OutboundResult, string]> = [
      [{ body: '', bodyTruncated: false, latencyMs: 200, error: { kind: 'timeout', message: 'timed out' } }, 'timeout'],
      [{ body: '', bodyTruncated: false, latencyMs: 1, error: { kind: 'connection', message: 'refused' } }, 'connection'],
      [{ body: '', bodyTruncated: false, latencyMs: 1, error: { kind: 'blocked_address', message: 'private' } }, 'blocked_address'],
      [ok('{"valid":true}', 500), 'status'],
      [ok(`{"valid":true,"x":"${'a'.repeat(1000)}"}`), 'too_long'],
      [{ ...ok('{"valid":true'), bodyTruncated: true }, 'too_long'],
      [ok('not json'), 'not_json'],
      [ok('[true]'), 'bad_answer'],
      [ok('{"valid":"yes"}'), 'bad_answer'],
      [ok('{"valid":false,"code":42}'), 'bad_answer'],
      [ok('{"valid":true,"payload":"text"}'), 'bad_answer'],
      [ok('{"valid":true,"payload":{"bodies":[]}}'), 'bad_answer'],
      [ok('{"valid":true,"payload":{"bodies":[{"type":"img"}]}}'), 'bad_answer'],
      [ok('{"valid":true,"payload":{"bodies":[{"type":"txt","msg":7}]}}'), 'bad_answer'],
      [ok('{"valid":true,"payload":{"ext":[1]}}'), 'bad_answer'],
    ];
    for (const [result, reason] of cases) expect(readAnswer(result, payload), JSON.stringify(result)).toMatchObject({ kind: 'failed', reason });
  });

  it('on_failure decides a failure; the refusal texts follow Easemob', () => {
    const failure = readAnswer(ok('nope'), payload);
    expect(decide(failure, payload, 'allow')).toEqual({ deliver: true, payload });
    expect(decide(failure, payload, 'reject')).toEqual({ deliver: false, text: 'custom internal error' });
    expect(decide({ kind: 'reject', code: 'no' }, payload, 'allow')).toEqual({ deliver: false, text: 'no' });
    expect(refusalText(undefined)).toBe('custom logic denied');
    expect(refusalText('')).toBe('Message blocked by external logic');
  });
});

describe('pre-send records', () => {
  const message: StoredMessage = {
    appId: 'a1',
    msgId: '1234',
    from: 'alice',
    to: '99',
    chatType: 'groupchat',
    source: 'sdk',
    timestamp: 1_700_000_000_000,
    payload,
  };

  it('is Easemob’s record, signed as post-send records are', () => {
    const record = presendRecord(message, 'acme#shop', () => 'u-1');
    expect(record).toEqual({ callId: 'acme#shop_u-1', timestamp: message.timestamp, chat_type: 'groupchat', group_id: '99', from: 'alice', to: '99', msg_id: '1234', payload });
    const secret = 'ab'.repeat(16);
    const signing = presendSigning(record, secret, 1_700_000_001_000);
    // What the outbound sender makes of it where it sends it (outbound/sender.ts).
    const signed = signedJson(signing.record, signing.callId, signing.timestamp, signing.secret, signing.nowMs);
    const body = JSON.parse(signed.body) as Record<string, unknown>;
    expect(Object.keys(body).at(-1)).toBe('security');
    expect(body.security).toBe(callbackSecurity(record.callId, secret, record.timestamp));
    expect(signed.headers['x-callback-body-md5']).toBe(md5Hex(signed.body));
    expect(verifyStandardWebhook(secret, signed.headers, signed.body, { nowSeconds: 1_700_000_001 })).toBe(true);
  });

  it('a rule covers a message by chat type and any body type', () => {
    expect(presendRuleMatches({ chatTypes: ['chat'], messageTypes: ['txt'] }, message)).toBe(false);
    expect(presendRuleMatches({ chatTypes: ['groupchat'], messageTypes: ['img'] }, message)).toBe(false);
    expect(presendRuleMatches({ chatTypes: ['groupchat'], messageTypes: ['img', 'txt'] }, { ...message, chatType: 'chatroom' })).toBe(true);
  });
});
