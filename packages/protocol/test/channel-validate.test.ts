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
  ])('names the field of a bad message (%#: %s)', (message, field) => {
    const result = validateCustomerMessage(message);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.field).toBe(field);
      expect(result.detail.startsWith(field)).toBe(true);
    }
  });
});
