/** The pure rules of user attributes (modules/im/user-attributes.ts). */
import { describe, expect, it } from 'vitest';
import { attributeChanges, attributesSize, mergeAttributes, pickProperties } from '../../src/modules/im/user-attributes.js';

describe('user attribute rules', () => {
  it('takes strings, numbers and booleans as text; refuses other values, bad names and nothing', () => {
    expect(attributeChanges({ nickname: 'A', gender: 1, vip: false })).toEqual({ nickname: 'A', gender: '1', vip: 'false' });
    expect(() => attributeChanges({ nickname: { a: 1 } })).toThrow(/nickname must be a string/);
    expect(() => attributeChanges({ 'a b': 'x' })).toThrow(/attribute name/);
    expect(() => attributeChanges({ ['k'.repeat(65)]: 'x' })).toThrow(/attribute name/);
    expect(() => attributeChanges({})).toThrow(/at least one/);
    expect(() => attributeChanges(['x'])).toThrow(/at least one/);
  });

  it('merges and counts keys and values in UTF-8 bytes against 2 KiB', () => {
    expect(attributesSize({ ab: 'é' })).toBe(4);
    expect(mergeAttributes({ a: '1', b: '2' }, { b: '3' })).toEqual({ a: '1', b: '3' });
    expect(() => mergeAttributes({ a: 'x'.repeat(2000) }, { b: 'y'.repeat(47) })).toThrow(/at most 2048 bytes/);
    expect(mergeAttributes({ a: 'x'.repeat(2000) }, { b: 'y'.repeat(46) })).toHaveProperty('b');
  });

  it('picks the asked properties, all when none are asked', () => {
    expect(pickProperties({ a: '1', b: '2' }, ['b', 'c'])).toEqual({ b: '2' });
    expect(pickProperties({ a: '1' }, [])).toEqual({ a: '1' });
    expect(pickProperties({ a: '1' }, undefined)).toEqual({ a: '1' });
  });
});
