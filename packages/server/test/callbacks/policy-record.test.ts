/**
 * Delivery policy (spec 3 "Delivery of one callback", 7, 8) and the records built from a message
 * (spec 2.4, contract 4.5), with the rule filters and the signed request.
 */
import { describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, verifyStandardWebhook } from '@parley/protocol';
import type { MessageEvent } from '../../src/modules/im/post-send.js';
import { classifyAttempt, characterCount, MAX_ANSWER_BYTES, nextStep } from '../../src/modules/callbacks/policy.js';
import { recordsOf, routeRecords, ruleMatches } from '../../src/modules/callbacks/record.js';
import { signedBody, signedRequest } from '../../src/modules/callbacks/record-signing.js';
import type { RuleFilters } from '../../src/modules/callbacks/ports.js';

const ok = (status: number | undefined, body = '', truncated = false) => ({ status, body, bodyTruncated: truncated, latencyMs: 1 });

describe('attempt outcome', () => {
  it('200 is success whatever the body', () => {
    expect(classifyAttempt(ok(200, 'not even json'))).toEqual({ kind: 'success' });
    expect(classifyAttempt(ok(200, 'x'.repeat(1000)))).toEqual({ kind: 'success' });
  });
  it('200 with more than 1,000 characters is over-long (characters, not bytes)', () => {
    expect(classifyAttempt(ok(200, 'x'.repeat(1001)))).toEqual({ kind: 'overlong' });
    expect(classifyAttempt(ok(200, '好'.repeat(1000)))).toEqual({ kind: 'success' });
    expect(classifyAttempt(ok(200, '😀'.repeat(1000)))).toEqual({ kind: 'success' });
    expect(classifyAttempt(ok(200, '好'.repeat(1001)))).toEqual({ kind: 'overlong' });
    expect(classifyAttempt(ok(200, 'x'.repeat(10), true))).toEqual({ kind: 'overlong' });
    expect(characterCount('a😀b')).toBe(3);
    expect(MAX_ANSWER_BYTES).toBe(4004);
  });
  it('any other status, refused connection or timeout is a failure', () => {
    expect(classifyAttempt(ok(201))).toEqual({ kind: 'failure', error: 'HTTP 201' });
    expect(classifyAttempt(ok(500))).toEqual({ kind: 'failure', error: 'HTTP 500' });
    expect(classifyAttempt({ ...ok(undefined), error: { kind: 'connection', message: 'ECONNREFUSED' } })).toEqual({ kind: 'failure', error: 'connection: ECONNREFUSED' });
    expect(classifyAttempt({ ...ok(undefined), error: { kind: 'timeout', message: 'no answer' } }).kind).toBe('failure');
  });
  it('one attempt plus exactly one immediate retry', () => {
    const fail = { kind: 'failure', error: 'HTTP 500' } as const;
    expect(nextStep(1, fail)).toBe('retry');
    expect(nextStep(2, fail)).toBe('exhausted');
    expect(nextStep(1, { kind: 'success' })).toBe('done');
    expect(nextStep(1, { kind: 'overlong' })).toBe('done');
  });
});

const T = Date.UTC(2026, 10, 21, 12, 0, 0);
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

const message = (over: Partial<MessageEvent> = {}): MessageEvent => ({
  appId: 'app-1',
  appkey: 'acme#shop',
  msgId: '1234567890',
  from: 'alice',
  to: 'bob',
  chatType: 'chat',
  timestamp: T,
  payload: { bodies: [{ type: 'txt', msg: 'hi' }], ext: { k: 1 } },
  source: 'sdk',
  offlineReceivers: [],
  ...over,
});

const all: RuleFilters = {
  eventTypes: ['chat', 'chat_offline'],
  chatTypes: ['chat', 'groupchat'],
  messageTypes: ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'],
  sources: ['sdk', 'rest'],
};

describe('records of a message', () => {
  it('one-to-one to an online user: one chat record with every field of spec 2.4', () => {
    const [r, ...rest] = recordsOf(message(), uuid);
    expect(rest).toEqual([]);
    expect(r).toEqual({
      callId: expect.stringMatching(/^acme#shop_[0-9a-f-]{36}$/),
      eventType: 'chat',
      timestamp: T,
      chat_type: 'chat',
      from: 'alice',
      to: 'bob',
      msg_id: '1234567890',
      payload: { bodies: [{ type: 'txt', msg: 'hi' }], ext: { k: 1 } },
      securityVersion: '1.0.0',
    });
  });
  it('one-to-one to an offline user: chat plus one chat_offline', () => {
    const rs = recordsOf(message({ offlineReceivers: ['bob'] }), uuid);
    expect(rs.map((r) => [r.eventType, r.to])).toEqual([['chat', 'bob'], ['chat_offline', 'bob']]);
    expect(new Set(rs.map((r) => r.callId)).size).toBe(2);
  });
  it('group: groupchat with group_id, one chat_offline per offline member other than the sender', () => {
    const rs = recordsOf(message({ chatType: 'groupchat', to: 'g1', groupId: 'g1', offlineReceivers: ['carol', 'dave', 'alice'] }), uuid);
    expect(rs.map((r) => [r.eventType, r.chat_type, r.group_id, r.to])).toEqual([
      ['chat', 'groupchat', 'g1', 'g1'],
      ['chat_offline', 'groupchat', 'g1', 'carol'],
      ['chat_offline', 'groupchat', 'g1', 'dave'],
    ]);
  });
  it('chat room: groupchat with group_id, never chat_offline', () => {
    const rs = recordsOf(message({ chatType: 'chatroom', to: 'r1', groupId: 'r1', offlineReceivers: ['x'] }), uuid);
    expect(rs.map((r) => [r.eventType, r.chat_type, r.group_id])).toEqual([['chat', 'groupchat', 'r1']]);
  });
});

describe('rule filters', () => {
  const m = message({ offlineReceivers: ['bob'] });
  it('event_types', () => {
    expect(ruleMatches({ ...all, eventTypes: ['chat'] }, m, 'chat_offline')).toBe(false);
    expect(routeRecords(m, [{ ...all, eventTypes: ['chat_offline'], enabled: true }], uuid).map((x) => x.record.eventType)).toEqual(['chat_offline']);
  });
  it('chat_types (groupchat covers chat rooms)', () => {
    expect(ruleMatches({ ...all, chatTypes: ['chat'] }, message({ chatType: 'chatroom' }), 'chat')).toBe(false);
    expect(ruleMatches({ ...all, chatTypes: ['groupchat'] }, message({ chatType: 'chatroom' }), 'chat')).toBe(true);
    expect(ruleMatches({ ...all, chatTypes: ['groupchat'] }, m, 'chat')).toBe(false);
  });
  it('message_types', () => {
    expect(ruleMatches({ ...all, messageTypes: ['img'] }, m, 'chat')).toBe(false);
    expect(ruleMatches({ ...all, messageTypes: ['img'] }, message({ payload: { bodies: [{ type: 'img', url: 'u' }], ext: {} } }), 'chat')).toBe(true);
  });
  it('sources', () => {
    expect(ruleMatches({ ...all, sources: ['rest'] }, m, 'chat')).toBe(false);
    expect(ruleMatches({ ...all, sources: ['rest'] }, message({ source: 'rest' }), 'chat')).toBe(true);
  });
  it('disabled rules get nothing; each rule gets its own callIds', () => {
    const routed = routeRecords(m, [{ ...all, enabled: true, id: 1 }, { ...all, enabled: false, id: 2 }, { ...all, enabled: true, id: 3 }], uuid);
    expect(routed.map((x) => x.rule.id)).toEqual([1, 1, 3, 3]);
    expect(new Set(routed.map((x) => x.record.callId)).size).toBe(4);
  });
});

describe('signed request', () => {
  it('carries security, the body MD5 and Standard Webhooks headers keyed with the secret', () => {
    const [record] = recordsOf(message(), uuid);
    const req = signedRequest(record!, 'cb-secret-42', T + 1500);
    const body = JSON.parse(req.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['callId', 'eventType', 'timestamp', 'chat_type', 'from', 'to', 'msg_id', 'payload', 'securityVersion', 'security']);
    expect(body.security).toBe(callbackSecurity(record!.callId, 'cb-secret-42', T));
    expect(req.headers['x-callback-body-md5']).toBe(md5Hex(req.body));
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.headers['webhook-id']).toBe(record!.callId);
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor((T + 1500) / 1000)));
    expect(verifyStandardWebhook('cb-secret-42', req.headers, req.body, { nowSeconds: Math.floor(T / 1000) })).toBe(true);
    expect(verifyStandardWebhook('other', req.headers, req.body, { nowSeconds: Math.floor(T / 1000) })).toBe(false);
  });
});

describe('signed body', () => {
  it('is byte for byte the JSON of the record with security added last', () => {
    const group = recordsOf(message({ chatType: 'groupchat', to: 'g1', groupId: 'g1', offlineReceivers: ['carol'] }), uuid);
    const unicode = { ...group[0]!, payload: { bodies: [{ type: 'txt', msg: '好😀 "quoted" \\ \u2028' }], ext: { k: [1, null, { z: true }] } } };
    for (const record of [...recordsOf(message(), uuid), ...group, unicode]) {
      for (const security of ['e6eaa883c94b53106ddf9b444058b867', '']) {
        expect(signedBody(record, security)).toBe(JSON.stringify({ ...record, security }));
      }
    }
  });
  it('replaces a security member a stored record carries instead of writing it twice', () => {
    const [record] = recordsOf(message(), uuid);
    const carried = { ...record!, security: 'stale' } as typeof record & { security: string };
    const body = signedBody(carried!, 'fresh');
    expect(body).toBe(JSON.stringify({ ...carried, security: 'fresh' }));
    expect(body.match(/"security"/g)).toHaveLength(1);
  });
});

describe('the worked example of docs/callbacks.md', () => {
  it('has the security, body MD5 and webhook signature the docs show', () => {
    const record = {
      callId: 'acme#shop_1b4e28ba-2fa1-41d2-883f-0016d3cca427',
      eventType: 'chat' as const,
      timestamp: 1893455940000,
      chat_type: 'chat' as const,
      from: 'alice',
      to: 'bob',
      msg_id: '1893455940000123',
      payload: { bodies: [{ type: 'txt', msg: 'hello' }], ext: {} },
      securityVersion: '1.0.0',
    };
    const req = signedRequest(record, 'cb-secret-42', 1893455941_000);
    expect(JSON.parse(req.body).security).toBe('e6eaa883c94b53106ddf9b444058b867');
    expect(req.headers['x-callback-body-md5']).toBe('fc2d3d0254bb75b5ebf13df629de6bc7');
    expect(req.headers['webhook-signature']).toBe('v1,IDjZbea4Ub8+6GH1utkA2UIk6fAbRS+gGqTPbyvgkAo=');
  });
});
