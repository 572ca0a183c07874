/**
 * The event catalogue's records (contract 6.7b), pure: which rules receive an operation's record
 * (its type in `event_types`; chat types, message types and sources do not apply; disabled rules
 * never), a callId per (record, rule), the signed body, and what the delivery log and the exception
 * store say of each record (`recordFacts`).
 */
import { describe, expect, it } from 'vitest';
import { callbackSecurity } from '@parley/protocol';
import { catalogueRecord, routeOperation } from '../../src/modules/callbacks/catalogue.js';
import { recordFacts, recordsOf } from '../../src/modules/callbacks/record.js';
import { signedRequest } from '../../src/modules/callbacks/record-signing.js';
import type { GroupOpEvent, ImOperationEvent } from '../../src/modules/im/operation-events.js';

const T = Date.UTC(2026, 10, 27, 1, 0, 0);
const base = { appId: 'app-1', appkey: 'acme#shop', timestamp: T } as const;
/** One event of each kind but group operations (whose records are group-ops.ts's, tested in group-operations.test.ts). */
type CatalogueEvent = Exclude<ImOperationEvent, GroupOpEvent>;
const EVENTS: Record<CatalogueEvent['kind'], CatalogueEvent> = {
  roster: { ...base, kind: 'roster', operation: 'add', from: 'ann', to: 'ben', msgId: '11', reason: 'hi' },
  userStatus: { ...base, kind: 'userStatus', username: 'ann', status: 'online', reason: 'login', os: 'ios', ip: '10.0.0.1', resource: 'ios_abc', version: '4.2' },
  recall: { ...base, kind: 'recall', msgId: '12', recalled: { msgId: '10', from: 'ann', to: 'g1', chatType: 'groupchat' } },
  read_ack: { ...base, kind: 'read_ack', chatType: 'chat', from: 'ben', to: 'ann', msgId: '13', ackMessageId: '10' },
};
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const rule = (name: string, eventTypes: string[], enabled = true) => ({ name, eventTypes, enabled, chatTypes: ['chat'], sources: ['rest'] });

describe('records of the event catalogue', () => {
  it('go to the enabled rules whose event_types list their type, whatever the message filters, each with its own callId', () => {
    const rules = [rule('all', ['roster', 'userStatus', 'recall', 'read_ack']), rule('messages', ['chat', 'chat_offline']), rule('off', ['roster'], false), rule('status', ['userStatus'])];
    for (const [kind, event] of Object.entries(EVENTS)) {
      const routed = routeOperation(event, rules, uuid);
      expect(routed.map((r) => r.rule.name)).toEqual(kind === 'userStatus' ? ['all', 'status'] : ['all']);
      expect(new Set(routed.map((r) => r.record.callId)).size).toBe(routed.length);
      for (const { record } of routed) expect(record.callId).toMatch(/^acme#shop_0{8}-0{4}-4000-8000-\d{12}$/);
    }
  });

  it('a login in Easemob shape, signed as message records are', () => {
    const record = catalogueRecord(EVENTS.userStatus, 'acme#shop_x');
    expect(record).toEqual({
      callId: 'acme#shop_x',
      eventType: 'userStatus',
      timestamp: T,
      user: 'acme#shop_ann@easemob.com/ios_abc',
      status: 'online',
      reason: 'login',
      os: 'ios',
      ip: '10.0.0.1',
      version: '4.2',
      appkey: 'acme#shop',
      securityVersion: '1.0.0',
    });
    const body = JSON.parse(signedRequest(record, 's3cret', T).body) as Record<string, unknown>;
    expect(body).toEqual({ ...record, security: callbackSecurity('acme#shop_x', 's3cret', T) });
  });

  it('a recall of a group message carries group_id; ban and allow carry status; add carries its reason', () => {
    expect(catalogueRecord(EVENTS.recall, 'c')).toMatchObject({ chat_type: 'recall', group_id: 'g1', from: 'ann', to: 'g1', msg_id: '12', recall_id: '10' });
    expect(catalogueRecord(EVENTS.roster, 'c')).toMatchObject({ from: 'acme#shop_ann@easemob.com', to: 'ben', payload: { reason: 'hi', operation: 'add' } });
    const ban = catalogueRecord({ ...(EVENTS.roster as Extract<ImOperationEvent, { kind: 'roster' }>), operation: 'ban' }, 'c');
    expect(ban).toMatchObject({ payload: { operation: 'ban', status: { error_code: 'ok' } } });
    expect((ban as { payload: object }).payload).not.toHaveProperty('reason');
  });

  it('the delivery log and the exception store name the event type, the message it is about and the users by name', () => {
    const summary = (kind: CatalogueEvent['kind']) => recordFacts(catalogueRecord(EVENTS[kind], 'c'));
    expect(summary('roster')).toEqual({ eventType: 'roster', msgId: '11', from: 'ann', to: 'ben' });
    expect(summary('userStatus')).toEqual({ eventType: 'userStatus', msgId: '', from: 'ann', to: '' });
    expect(summary('recall')).toEqual({ eventType: 'recall', msgId: '10', from: 'ann', to: 'g1' });
    expect(summary('read_ack')).toEqual({ eventType: 'read_ack', msgId: '10', from: 'ben', to: 'ann' });
    const [chat] = recordsOf({ ...base, msgId: '9', from: 'a', to: 'b', chatType: 'chat', payload: { bodies: [{ type: 'txt', msg: 'x' }], ext: {} }, source: 'sdk', offlineReceivers: [] }, uuid);
    expect(recordFacts(chat!)).toEqual({ eventType: 'chat', msgId: '9', from: 'a', to: 'b' });
  });
});
