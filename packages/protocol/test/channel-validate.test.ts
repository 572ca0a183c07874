import { describe, expect, it } from 'vitest';
import { validateCustomerMessage } from '../src/index.js';

const good = { bodies: [{ type: 'txt', msg: 'hi' }], origin_type: 'rest', from: 'c1', timestamp: 1 };

describe('validateCustomerMessage (contract 3.2 body rules)', () => {
  it('accepts a minimal message and every media type', () => {
    expect(validateCustomerMessage(good).ok).toBe(true);
    for (const type of ['img', 'audio', 'video']) {
      expect(validateCustomerMessage({ ...good, bodies: [{ type, url: 'https://x.example/a', filename: 'a' }] }).ok).toBe(true);
    }
  });

  it.each([
    [{ ...good, bodies: [] }, 'bodies'],
    [{ ...good, bodies: 'x' }, 'bodies'],
    [{ ...good, bodies: [{ type: 'file', url: 'https://x/a', filename: 'a' }] }, 'bodies[0].type'],
    [{ ...good, bodies: [{ type: 'txt', msg: '' }] }, 'bodies[0].msg'],
    [{ ...good, bodies: [{ type: 'txt', msg: 'a' }, { type: 'img', url: 'ftp://x/a', filename: 'a' }] }, 'bodies[1].url'],
    [{ ...good, bodies: [{ type: 'img', url: 'https://x/a' }] }, 'bodies[0].filename'],
    [{ ...good, bodies: [{ type: 'img', url: 'https://x/a', filename: 'a', size: { width: 'w' } }] }, 'bodies[0].size.width'],
    [{ ...good, bodies: [{ type: 'audio', url: 'https://x/a', filename: 'a', length: 1.5 }] }, 'bodies[0].length'],
    [{ ...good, origin_type: 'web' }, 'origin_type'],
    [{ ...good, from: '' }, 'from'],
    [{ ...good, timestamp: '1' }, 'timestamp'],
    [{ ...good, timestamp: 1.5 }, 'timestamp'],
    [{ ...good, ext: [] }, 'ext'],
    [{ ...good, ext: { queue_name: 5 } }, 'ext.queue_name'],
    [{ ...good, ext: { visitor: { tags: 'vip' } } }, 'ext.visitor.tags'],
    [{ ...good, ext: { visitor: { phone: 1 } } }, 'ext.visitor.phone'],
    [{ ...good, ext: { msgtype: { order: { price: 3 } } } }, 'ext.msgtype.order.price'],
    [{ ...good, msg_id: '' }, 'msg_id'],
    [[good], 'body'],
    [{ ...good, from: '   ' }, 'from'],
    [{ ...good, from: 'x'.repeat(257) }, 'from'],
    [{ ...good, msg_id: 'm'.repeat(129) }, 'msg_id'],
    [{ ...good, timestamp: 2 ** 60 }, 'timestamp'],
    [{ ...good, bodies: Array.from({ length: 21 }, () => ({ type: 'txt', msg: 'a' })) }, 'bodies'],
    [{ ...good, bodies: [7] }, 'bodies[0]'],
    [{ ...good, ext: { visitor: { tags: ['a', 1] } } }, 'ext.visitor.tags[1]'],
  ])('names the field of a bad message (%#: %s)', (message, field) => {
    const result = validateCustomerMessage(message);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.field).toBe(field);
      expect(result.detail.startsWith(field)).toBe(true);
    }
  });

  it('words each rule from the schema, naming the field', () => {
    const detail = (message: unknown) => {
      const result = validateCustomerMessage(message);
      return result.ok ? 'ok' : result.detail;
    };
    expect(detail({ ...good, bodies: [{ type: 'img', url: 'ftp://x/a', filename: 'a' }] })).toBe('bodies[0].url must be an http(s) URL');
    expect(detail({ ...good, bodies: [{ type: 'loc' }] })).toBe('bodies[0].type must be one of txt, img, audio, video');
    expect(detail({ ...good, bodies: [{ type: 'audio', url: 'https://x/a', filename: 'a', length: -1 }] })).toBe('bodies[0].length must be a non-negative integer');
    expect(detail({ ...good, from: ' ' })).toBe('from must be a non-empty string');
    expect(detail({ ...good, from: 'x'.repeat(257) })).toBe('from must be at most 256 characters');
    expect(detail({ ...good, origin_type: 'web' })).toBe('origin_type must be "rest"');
    expect(detail({ ...good, bodies: [] })).toBe('bodies must be a non-empty array');
    expect(detail({ ...good, bodies: Array.from({ length: 21 }, () => ({ type: 'txt', msg: 'a' })) })).toBe('bodies must hold at most 20 items');
    expect(detail('x')).toBe('body must be a JSON object');
  });

  it('accepts null tags, unknown properties, and a body of each kind with its optional fields', () => {
    const media = { url: 'http://x.example/a', filename: 'a' };
    const message = {
      ...good,
      custom: { anything: true },
      msg_id: 'm-1',
      bodies: [
        { type: 'txt', msg: 'hi' },
        { type: 'img', ...media, size: { width: 1, height: 2 } },
        { type: 'audio', ...media, length: 3 },
        { type: 'video', ...media, length: 0 },
      ],
      ext: { queue_id: '1', visitor: { tags: null, phone: '1' }, msgtype: { order: { price: '3' }, track: { title: 't' } } },
    };
    expect(validateCustomerMessage(message)).toEqual({ ok: true, message });
  });
});
