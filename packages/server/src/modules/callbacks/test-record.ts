/**
 * A test record sent to one rule on request (beyond the spec): the app's admin sees the exact
 * signed strings, the request's headers and body, and what the receiver answered. It goes
 * through the same signing and outbound sender as live records, but counts toward nothing: no
 * ban window, no exception store, no metrics of records.
 */
import { CALLBACK_SECURITY_VERSION, type CallbackTestResult } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { uuid } from '../../kernel/ids.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { CallbackRule } from './ports.js';
import { ruleSigningKeys, signedRequest } from './record-signing.js';
import type { UnsignedRecord } from './record.js';

/** Answer bytes shown back (the receiver's answer beyond this is cut). */
const MAX_ANSWER_BYTES = 4_096;

/** The record a test sends: a `chat` text message from and to `parley_test`, marked in `ext`. */
export function testRecord(appkey: string, nowMs: number, newUuid: () => string = uuid): UnsignedRecord {
  return {
    callId: `${appkey}_${newUuid()}`,
    eventType: 'chat',
    timestamp: nowMs,
    chat_type: 'chat',
    from: 'parley_test',
    to: 'parley_test',
    msg_id: '0',
    payload: { bodies: [{ type: 'txt', msg: 'Parley test record' }], ext: { parley_test: true } },
    securityVersion: CALLBACK_SECURITY_VERSION,
  };
}

export async function sendTestRecord(
  deps: { outbound: Pick<OutboundSender, 'post'>; clock: Clock; timeoutMs: number },
  appkey: string,
  rule: Pick<CallbackRule, 'id' | 'url' | 'secret'>,
): Promise<CallbackTestResult> {
  const now = deps.clock.now();
  const record = testRecord(appkey, now);
  const request = signedRequest(record, ruleSigningKeys(rule), now);
  const webhookTimestamp = request.headers['webhook-timestamp'] ?? '';
  const result = await deps.outbound.post({
    url: rule.url,
    headers: request.headers,
    body: request.body,
    timeoutMs: deps.timeoutMs,
    maxResponseBytes: MAX_ANSWER_BYTES,
    budgetKey: `rule:${rule.id}`,
  });
  return {
    url: rule.url,
    signed: {
      security: `${record.callId}${rule.secret}${record.timestamp}`,
      webhook: `${record.callId}.${webhookTimestamp}.${request.body}`,
    },
    headers: request.headers,
    body: request.body,
    response: {
      status: result.status ?? null,
      body: result.body,
      truncated: result.bodyTruncated,
      latency_ms: Math.round(result.latencyMs),
      error: result.error ? `${result.error.kind}: ${result.error.message}` : null,
    },
  };
}
