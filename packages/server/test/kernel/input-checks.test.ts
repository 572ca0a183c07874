import { describe, expect, it } from 'vitest';
import { inspectJson, jsonSyntaxDetail, MAX_JSON_DEPTH } from '../../src/kernel/input-checks.js';

/** An object `levels` deep: {"a":{"a":...{}}}. */
const deep = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

describe('inspectJson', () => {
  it('accepts ordinary bodies and the bounds themselves', () => {
    expect(inspectJson({ from: 'c', bodies: [{ type: 'txt', msg: 'héllo 😀' }], timestamp: 1_893_455_940_000 })).toBeUndefined();
    expect(inspectJson(deep(MAX_JSON_DEPTH))).toBeUndefined();
    expect(inspectJson({ n: Number.MAX_SAFE_INTEGER, m: -Number.MAX_SAFE_INTEGER, f: 0.5 })).toBeUndefined();
  });

  it('names the first faulty field with what is wrong', () => {
    expect(inspectJson(deep(MAX_JSON_DEPTH + 1))).toEqual({ field: `body${'.a'.repeat(MAX_JSON_DEPTH)}`, problem: 'is nested deeper than 32 levels' });
    expect(inspectJson({ bodies: [{ msg: 'a\u0000' }] }, '')).toEqual({ field: 'bodies[0].msg', problem: 'contains U+0000' });
    expect(inspectJson({ 'odd key': ['\ud800'] })).toEqual({ field: 'body["odd key"][0]', problem: 'contains an unpaired surrogate (not UTF-16 text)' });
    expect(inspectJson({ ['k\u0000']: 1 })).toEqual({ field: 'body["k\\u0000"]', problem: 'has a name that contains U+0000' });
    expect(inspectJson({ id: Number.MAX_SAFE_INTEGER + 1 })?.field).toBe('body.id');
    expect(inspectJson('\u0000')).toEqual({ field: 'body', problem: 'contains U+0000' });
  });

  it('walks 100,000 levels without recursion', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(inspectJson(JSON.parse(text))?.problem).toBe('is nested deeper than 32 levels');
  });
});

describe('jsonSyntaxDetail', () => {
  it.each(['{"password":hunter2-secret}', '{"token": "abc" tok-secret-1}', 'hunter2-secret', '{"a":1}x', '{"password":"unterminated'])('%s: says what is wrong without quoting the input', (text) => {
    let error: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      error = e;
    }
    const detail = jsonSyntaxDetail(error);
    expect(detail.length).toBeGreaterThan(0);
    for (const secret of ['hunter2', 'tok-secret', 'unterminated']) expect(detail).not.toContain(secret);
  });
});
