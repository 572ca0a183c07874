/**
 * The pre-send check (contract 6.5), the callbacks module's side of the IM pre-send seam
 * (im/pre-send.ts): every message of a send is posted to each of the app's pre-send rules that
 * covers it, in the rules' order, each seeing the text the previous one left; the first refusal
 * refuses the whole send. One port for every send path: the REST, JSON socket and msync
 * senders all reach it through `ImMessagesService.enqueue`; an edit of a sent message
 * (`EditsService.edit`) is asked about the same way, as Easemob's edit record (`reviewEdit`).
 */
import { IM_LIMITS, PRESEND_MAX_ANSWER_CHARS, type PresendEditRecord, type PresendRecord } from '@parley/protocol';
import type { Clock } from '../../../kernel/clock.js';
import { AppError } from '../../../kernel/errors.js';
import { uuid } from '../../../kernel/ids.js';
import type { ImApp, StoredMessage } from '../../im/ports.js';
import type { EditUnderReview, PreSendHook } from '../../im/pre-send.js';
import type { OutboundResult, OutboundSender } from '../../outbound/ports.js';
import { decide, readAnswer, type Payload, type PresendAnswer } from './answer.js';
import type { PresendMetrics, PresendOutcome } from './metrics.js';
import type { PresendRule } from './ports.js';
import { presendEditRecord, presendRecord, presendRuleMatches, presendSigning } from './record.js';
import type { PresendRulesCache } from './rules-cache.js';

/** The refusal of a send by a pre-send rule: 403 `forbidden_op`, the description being the app's text. */
export function presendRefusal(text: string, rule: string): AppError {
  return new AppError('forbidden_op', { detail: text, rule: 'presend', presendRule: rule, code: text });
}

/** The headers of a request the sender signs (`signing`): it makes them all. */
const UNSIGNED: Record<string, string> = Object.freeze({}) as Record<string, string>;

const fitsSize = (payload: Payload): boolean => Buffer.byteLength(JSON.stringify(payload), 'utf8') <= IM_LIMITS.messageBytes;

export class PresendCheck implements PreSendHook {
  constructor(
    private readonly rules: Pick<PresendRulesCache, 'rules'>,
    private readonly outbound: Pick<OutboundSender, 'post'>,
    private readonly clock: Clock,
    private readonly metrics: PresendMetrics,
    private readonly newUuid: () => string = uuid,
  ) {}

  async review(app: ImApp, messages: readonly StoredMessage[]): Promise<readonly StoredMessage[]> {
    const rules = await this.rules.rules(app.id);
    if (rules.length === 0) return messages;
    const recordOf = (m: StoredMessage) => presendRecord(m, app.appkey, this.newUuid);
    return Promise.all(messages.map((m) => this.reviewOne(m, rules, recordOf)));
  }

  /** An edit goes to the same rules as a message with its new content, as Easemob's edit record. */
  async reviewEdit(app: ImApp, edit: EditUnderReview): Promise<StoredMessage['payload']> {
    const rules = await this.rules.rules(app.id);
    if (rules.length === 0) return edit.message.payload;
    const recordOf = (m: StoredMessage) => presendEditRecord({ ...edit, message: m }, app.appkey, this.newUuid);
    return (await this.reviewOne(edit.message, rules, recordOf)).payload;
  }

  private async reviewOne(message: StoredMessage, rules: readonly PresendRule[], recordOf: (m: StoredMessage) => PresendRecord | PresendEditRecord): Promise<StoredMessage> {
    let current = message;
    for (const rule of rules) {
      if (!presendRuleMatches(rule, current)) continue;
      const { answer, latencyMs } = await this.ask(rule, recordOf(current), current.payload);
      const decision = decide(answer, current.payload, rule.onFailure);
      this.metrics.call(outcomeOf(answer, decision.deliver), answer.kind === 'failed' ? answer.reason : undefined, latencyMs);
      if (!decision.deliver) throw presendRefusal(decision.text, rule.name);
      if (decision.payload !== current.payload) current = { ...current, payload: decision.payload };
    }
    return current;
  }

  private async ask(rule: PresendRule, record: PresendRecord | PresendEditRecord, payload: Payload): Promise<{ answer: PresendAnswer; latencyMs: number }> {
    // Signed where it is sent (the outbound thread), with the secret of the rule as read now: a changed or rotated rule signs with the new secret at once.
    const signing = presendSigning(record, rule.secret, this.clock.now());
    try {
      const result = await withDeadline(rule.timeoutMs, this.outbound.post({
        url: rule.url,
        headers: UNSIGNED,
        body: '',
        signing,
        timeoutMs: rule.timeoutMs,
        // One character more than allowed tells an over-long answer from one at the limit.
        maxResponseBytes: PRESEND_MAX_ANSWER_CHARS * 4 + 1,
        budgetKey: `presend:${rule.id}`,
      }));
      const answer = readAnswer(result, payload);
      if (answer.kind === 'rewrite' && !fitsSize(answer.payload)) {
        return { answer: { kind: 'failed', reason: 'bad_answer', detail: `the rewritten message is over ${IM_LIMITS.messageBytes} bytes` }, latencyMs: result.latencyMs };
      }
      return { answer, latencyMs: result.latencyMs };
    } catch (error) {
      return { answer: { kind: 'failed', reason: 'connection', detail: error instanceof Error ? error.message : String(error) }, latencyMs: 0 };
    }
  }
}

/**
 * The exchange's own deadline runs where the request is sent (a worker thread): its answer comes
 * back through that thread's messages. The sender waits on this thread's timer instead, so a busy
 * worker never makes it wait past the rule's timeout; the exchange is still aborted there.
 */
function withDeadline(timeoutMs: number, exchange: Promise<OutboundResult>): Promise<OutboundResult> {
  // One promise and one timer per check (no race of two promises and a `finally` on every message).
  return new Promise<OutboundResult>((resolve, reject) => {
    const timer = setTimeout(() => resolve({ body: '', bodyTruncated: false, latencyMs: timeoutMs, error: { kind: 'timeout', message: `no answer within ${timeoutMs} ms` } }), timeoutMs);
    exchange.then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function outcomeOf(answer: PresendAnswer, delivered: boolean): PresendOutcome {
  if (answer.kind === 'failed') return delivered ? 'failed_allowed' : 'failed_rejected';
  if (answer.kind === 'reject') return 'rejected';
  return answer.kind === 'rewrite' ? 'rewritten' : 'delivered';
}
