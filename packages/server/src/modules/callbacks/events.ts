/**
 * Typed events of the callbacks engine. Metrics and logs subscribe to them; the engine never
 * calls metrics or the logger for these itself.
 */
import { EventEmitter } from 'node:events';
import type { BanEvent } from './ban.js';

export type DeliveryResult = 'succeeded' | 'overlong' | 'stored' | 'dropped';

export interface RuleRef {
  ruleId: number;
  appId: string;
  rule: string;
}

export interface CallbackEventMap {
  'rule.banned': [RuleRef & Extract<BanEvent, { type: 'rule.banned' }>];
  'rule.unbanned': [RuleRef & Extract<BanEvent, { type: 'rule.unbanned' }>];
  /** One HTTP attempt finished. */
  'attempt.finished': [
    RuleRef & {
      outcome: 'success' | 'overlong' | 'failure';
      latencyMs: number;
      resend: boolean;
      callId?: string;
      error?: string;
      /** The record's message, event and users, and the answer's HTTP status (none without an answer). */
      msgId?: string;
      eventType?: string;
      from?: string;
      to?: string;
      httpStatus?: number;
    },
  ];
  /** A live record reached its end state; `endToEndMs` is message receipt → 200, when delivered. */
  'record.finished': [RuleRef & { result: DeliveryResult; reason?: string; endToEndMs?: number }];
}

export class CallbackEvents extends EventEmitter<CallbackEventMap> {}
