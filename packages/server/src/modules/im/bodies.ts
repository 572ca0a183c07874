/**
 * Message body rules (contract 4.3), as pure functions: each failure is a 400 `illegal_argument`
 * whose description names the field.
 */
import { IM_BODY_TYPES, type ImBodyType } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import type { MessageBody } from './post-send.js';

type Rule = 'string' | 'url' | 'integer' | 'number' | 'object' | 'stringMap';
interface FieldRule {
  rule: Rule;
  required: boolean;
}

const req = (rule: Rule): FieldRule => ({ rule, required: true });
const opt = (rule: Rule): FieldRule => ({ rule, required: false });

const FIELDS: Record<ImBodyType, Record<string, FieldRule>> = {
  txt: { msg: req('string') },
  img: { url: req('url'), filename: req('string'), size: opt('object'), secret: opt('string') },
  audio: { url: req('url'), filename: req('string'), length: req('integer'), secret: opt('string') },
  video: { url: req('url'), filename: req('string'), length: req('integer'), thumb: opt('url'), secret: opt('string'), thumb_secret: opt('string'), file_length: opt('integer') },
  file: { url: req('url'), filename: req('string'), secret: opt('string'), file_length: opt('integer') },
  loc: { lat: req('number'), lng: req('number'), addr: req('string') },
  cmd: { action: req('string') },
  custom: { customEvent: req('string'), customExts: opt('stringMap') },
};

const bad = (detail: string) => new AppError('illegal_argument', { detail });

function check(field: string, rule: Rule, value: unknown): void {
  switch (rule) {
    case 'string':
      if (typeof value !== 'string' || value.length === 0) throw bad(`${field} must be a non-empty string`);
      return;
    case 'url': {
      let ok = false;
      if (typeof value === 'string') {
        try {
          ok = ['http:', 'https:'].includes(new URL(value).protocol);
        } catch {
          ok = false;
        }
      }
      if (!ok) throw bad(`${field} must be an http or https URL`);
      return;
    }
    case 'integer':
      if (!Number.isInteger(value) || (value as number) < 0) throw bad(`${field} must be a non-negative integer`);
      return;
    case 'number':
      // Easemob clients send coordinates as numbers or numeric strings.
      if (!(typeof value === 'number' && Number.isFinite(value)) && !(typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))) {
        throw bad(`${field} must be a number`);
      }
      return;
    case 'object':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(`${field} must be an object`);
      return;
    case 'stringMap':
      if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
        throw bad(`${field} must be an object of strings`);
      }
      return;
  }
}

export const isBodyType = (type: unknown): type is ImBodyType => typeof type === 'string' && (IM_BODY_TYPES as readonly string[]).includes(type);

/**
 * Checks one body and returns it in the `{type, ...fields}` shape, with unknown fields dropped.
 * `prefix` names where it came from (`body`, `msg`, `bodies[0]`).
 */
export function normaliseBody(type: unknown, fields: Record<string, unknown>, prefix: string, typeField: string): MessageBody {
  if (!isBodyType(type)) throw bad(`${typeField}: unknown message type "${String(type)}"; expected one of ${IM_BODY_TYPES.join(', ')}`);
  const out: MessageBody = { type };
  for (const [name, rule] of Object.entries(FIELDS[type])) {
    const value = fields[name];
    if (value === undefined || value === null) {
      if (rule.required) throw bad(`${prefix}.${name} is required for type ${type}`);
      continue;
    }
    check(`${prefix}.${name}`, rule.rule, value);
    out[name] = value;
  }
  return out;
}

/** The text moderation looks at: every `txt` message and a location's address. */
export function bodyText(body: MessageBody): string {
  if (body.type === 'txt' && typeof body.msg === 'string') return body.msg;
  if (body.type === 'loc' && typeof body.addr === 'string') return body.addr;
  return '';
}
