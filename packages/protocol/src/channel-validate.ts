/**
 * Field-precise validation of a customer message (spec 2.2, contract 3.2). Kept by hand rather
 * than derived from the TypeBox schema because a union of body shapes yields errors about
 * "no union member matched"; an integrator needs "bodies[0].url must be an http(s) URL".
 * Pure: the server's ingest and the SDK (before sending) use the same rules.
 */
import { VISITOR_STRING_FIELDS, type CustomerMessage } from './channel.js';

export type ValidationResult = { ok: true; message: CustomerMessage } | { ok: false; field: string; detail: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const TYPES = ['txt', 'img', 'audio', 'video'];
const MAX_BODIES = 20;

const fail = (field: string, detail: string): ValidationResult => ({ ok: false, field, detail: `${field} ${detail}` });

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function checkOptionalInteger(obj: Record<string, unknown>, key: string, field: string): ValidationResult | undefined {
  if (obj[key] === undefined) return undefined;
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return fail(field, 'must be a non-negative integer');
  return undefined;
}

function checkBody(body: unknown, i: number): ValidationResult | undefined {
  const at = `bodies[${i}]`;
  if (!isObject(body)) return fail(at, 'must be an object');
  if (typeof body.type !== 'string' || !TYPES.includes(body.type)) return fail(`${at}.type`, `must be one of ${TYPES.join(', ')}`);
  if (body.type === 'txt') {
    if (typeof body.msg !== 'string' || body.msg.length === 0) return fail(`${at}.msg`, 'must be a non-empty string');
    return undefined;
  }
  if (typeof body.url !== 'string' || !isHttpUrl(body.url)) return fail(`${at}.url`, 'must be an http(s) URL');
  if (typeof body.filename !== 'string' || body.filename.length === 0) return fail(`${at}.filename`, 'must be a non-empty string');
  if (body.type === 'img' && body.size !== undefined) {
    if (!isObject(body.size)) return fail(`${at}.size`, 'must be an object');
    const bad = checkOptionalInteger(body.size, 'width', `${at}.size.width`) ?? checkOptionalInteger(body.size, 'height', `${at}.size.height`);
    if (bad) return bad;
  }
  if (body.type !== 'img') {
    const bad = checkOptionalInteger(body, 'length', `${at}.length`);
    if (bad) return bad;
  }
  return undefined;
}

function checkStrings(obj: Record<string, unknown>, keys: readonly string[], prefix: string): ValidationResult | undefined {
  for (const key of keys) {
    if (obj[key] !== undefined && typeof obj[key] !== 'string') return fail(`${prefix}.${key}`, 'must be a string');
  }
  return undefined;
}

function checkExt(ext: unknown): ValidationResult | undefined {
  if (ext === undefined) return undefined;
  if (!isObject(ext)) return fail('ext', 'must be an object');
  const bad = checkStrings(ext, ['queue_id', 'queue_name', 'agent_username'], 'ext');
  if (bad) return bad;
  if (ext.visitor !== undefined) {
    if (!isObject(ext.visitor)) return fail('ext.visitor', 'must be an object');
    const badVisitor = checkStrings(ext.visitor, VISITOR_STRING_FIELDS, 'ext.visitor');
    if (badVisitor) return badVisitor;
    const tags = ext.visitor.tags;
    if (tags !== undefined && tags !== null && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))) {
      return fail('ext.visitor.tags', 'must be an array of strings');
    }
  }
  if (ext.msgtype !== undefined) {
    if (!isObject(ext.msgtype)) return fail('ext.msgtype', 'must be an object');
    for (const card of ['order', 'track'] as const) {
      const value = ext.msgtype[card];
      if (value === undefined) continue;
      if (!isObject(value)) return fail(`ext.msgtype.${card}`, 'must be an object');
      const keys = card === 'order' ? ['title', 'order_title', 'price', 'desc', 'img_url', 'item_url'] : ['title', 'price', 'desc', 'img_url', 'item_url'];
      const badCard = checkStrings(value, keys, `ext.msgtype.${card}`);
      if (badCard) return badCard;
    }
  }
  return undefined;
}

/** Checks a parsed JSON value against the rules of a customer message. */
export function validateCustomerMessage(value: unknown): ValidationResult {
  if (!isObject(value)) return fail('body', 'must be a JSON object');
  if (!Array.isArray(value.bodies) || value.bodies.length === 0) return fail('bodies', 'must be a non-empty array');
  if (value.bodies.length > MAX_BODIES) return fail('bodies', `must hold at most ${MAX_BODIES} bodies`);
  for (let i = 0; i < value.bodies.length; i++) {
    const bad = checkBody(value.bodies[i], i);
    if (bad) return bad;
  }
  if (value.origin_type !== 'rest') return fail('origin_type', 'must be "rest"');
  if (typeof value.from !== 'string' || value.from.trim().length === 0) return fail('from', 'must be a non-empty string');
  if (value.from.length > 256) return fail('from', 'must be at most 256 characters');
  if (typeof value.timestamp !== 'number' || !Number.isSafeInteger(value.timestamp)) return fail('timestamp', 'must be an integer');
  if (value.msg_id !== undefined) {
    if (typeof value.msg_id !== 'string' || value.msg_id.length === 0 || value.msg_id.length > 128) {
      return fail('msg_id', 'must be a string of 1 to 128 characters');
    }
  }
  const badExt = checkExt(value.ext);
  if (badExt) return badExt;
  return { ok: true, message: value as unknown as CustomerMessage };
}
