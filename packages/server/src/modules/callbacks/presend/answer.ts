/**
 * What a pre-send answer means (contract 6.5; Easemob's `callback_presending`). Pure.
 *
 * The receiver answers HTTP 200 with `{"valid": bool, "code"?: string, "payload"?: {bodies?, ext?}}`.
 * `valid: true` delivers, with `payload` replacing the text of the `txt` bodies and the `ext`;
 * `valid: false` refuses, the sender seeing `code`. Anything else (no answer in time, another
 * status, an answer over 1,000 characters, not JSON, `valid` missing or not a boolean, a `code`
 * that is not a string, a `payload` that does not fit the message) is a failure, which the rule's
 * `on_failure` turns into a delivery or a refusal with `custom internal error`.
 */
import { PRESEND_MAX_ANSWER_CHARS, type PresendOnFailure } from '@parley/protocol';
import type { OutboundResult } from '../../outbound/ports.js';
import type { MessageBody } from '../../im/post-send.js';

export type Payload = { bodies: MessageBody[]; ext: Record<string, unknown> };

export const PRESEND_FAILURES = ['timeout', 'connection', 'blocked_address', 'status', 'too_long', 'not_json', 'bad_answer'] as const;
export type PresendFailure = (typeof PRESEND_FAILURES)[number];

export type PresendAnswer =
  | { kind: 'deliver' }
  | { kind: 'rewrite'; payload: Payload }
  | { kind: 'reject'; code: string | undefined }
  | { kind: 'failed'; reason: PresendFailure; detail: string };

/** The refusal text the sender sees (Easemob's texts for an absent or empty `code`). */
export const CUSTOM_INTERNAL_ERROR = 'custom internal error';
export function refusalText(code: string | undefined): string {
  if (code === undefined) return 'custom logic denied';
  if (code === '') return 'Message blocked by external logic';
  return code;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The message with the receiver's `payload` applied: each `txt` body's `msg` from the body at the
 * same place, `ext` replaced when given. Undefined when the payload does not fit the message (not
 * an object, another number of bodies, a body of another type, a `msg` that is not a string).
 */
export function applyRewrite(original: Payload, answered: unknown): Payload | undefined {
  if (!isObject(answered)) return undefined;
  let bodies = original.bodies;
  if (answered.bodies !== undefined) {
    const given = answered.bodies;
    if (!Array.isArray(given) || given.length !== original.bodies.length) return undefined;
    const next: MessageBody[] = [];
    for (const [i, body] of original.bodies.entries()) {
      const g: unknown = given[i];
      if (!isObject(g) || g.type !== body.type) return undefined;
      if (body.type !== 'txt' || g.msg === undefined) next.push(body);
      else if (typeof g.msg === 'string') next.push({ ...body, msg: g.msg });
      else return undefined;
    }
    bodies = next;
  }
  if (answered.ext !== undefined && !isObject(answered.ext)) return undefined;
  return { bodies, ext: answered.ext === undefined ? original.ext : answered.ext };
}

const failed = (reason: PresendFailure, detail: string): PresendAnswer => ({ kind: 'failed', reason, detail });

/** Reads one HTTP exchange with the receiver as an answer about `payload`. */
export function readAnswer(result: OutboundResult, payload: Payload): PresendAnswer {
  if (result.error) {
    const reason: PresendFailure = result.error.kind === 'timeout' ? 'timeout' : result.error.kind === 'blocked_address' ? 'blocked_address' : 'connection';
    return failed(reason, result.error.message);
  }
  if (result.status !== 200) return failed('status', `HTTP ${result.status ?? 'none'}`);
  if (result.bodyTruncated || result.body.length > PRESEND_MAX_ANSWER_CHARS) return failed('too_long', `answer over ${PRESEND_MAX_ANSWER_CHARS} characters`);
  let answer: unknown;
  try {
    answer = JSON.parse(result.body);
  } catch {
    return failed('not_json', 'the answer is not JSON');
  }
  if (!isObject(answer) || typeof answer.valid !== 'boolean') return failed('bad_answer', '"valid" is missing or not a boolean');
  if (answer.code !== undefined && typeof answer.code !== 'string') return failed('bad_answer', '"code" is not a string');
  if (!answer.valid) return { kind: 'reject', code: answer.code };
  if (answer.payload === undefined || answer.payload === null) return { kind: 'deliver' };
  const rewritten = applyRewrite(payload, answer.payload);
  return rewritten ? { kind: 'rewrite', payload: rewritten } : failed('bad_answer', '"payload" does not fit the message');
}

/** What happens to the message: delivered (maybe rewritten) or refused with the text the sender sees. */
export type PresendDecision = { deliver: true; payload: Payload } | { deliver: false; text: string };

export function decide(answer: PresendAnswer, payload: Payload, onFailure: PresendOnFailure): PresendDecision {
  switch (answer.kind) {
    case 'deliver':
      return { deliver: true, payload };
    case 'rewrite':
      return { deliver: true, payload: answer.payload };
    case 'reject':
      return { deliver: false, text: refusalText(answer.code) };
    case 'failed':
      return onFailure === 'allow' ? { deliver: true, payload } : { deliver: false, text: CUSTOM_INTERNAL_ERROR };
  }
}
