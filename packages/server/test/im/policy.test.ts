/** Pure IM rules: message ids, body checks and sensitive-word matching. No database, no timers. */
import { describe, expect, it } from 'vitest';
import { normaliseBody } from '../../src/modules/im/bodies.js';
import { findSensitiveWord } from '../../src/modules/im/moderation.js';
import { IdGenerator, idTime } from '../../src/modules/im/msg-id.js';
import { FakeClock } from '../helpers/clock.js';

describe('message ids', () => {
  it('are decimal strings, strictly increasing, carrying their time', () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 12));
    const ids = new IdGenerator(clock);
    const seen: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i % 2500 === 0) clock.advance(1);
      seen.push(ids.next());
    }
    expect(seen.every((id) => /^\d+$/.test(id))).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(BigInt(seen[i] as string) > BigInt(seen[i - 1] as string)).toBe(true);
    expect(Number.isSafeInteger(Number(seen.at(-1)))).toBe(true);
    expect(idTime(seen[0] as string)).toBe(Date.UTC(2026, 10, 21, 12) + 1);
  });

  it('never go backwards when the clock does', () => {
    const clock = new FakeClock(1_800_000_000_000);
    const ids = new IdGenerator(clock);
    const a = ids.next();
    clock.advance(-5_000);
    expect(BigInt(ids.next()) > BigInt(a)).toBe(true);
  });
});

describe('message bodies', () => {
  it('keeps the fields of the type and drops unknown ones', () => {
    expect(normaliseBody('txt', { msg: 'hi', extra: 1 }, 'body', 'type')).toEqual({ type: 'txt', msg: 'hi' });
    expect(normaliseBody('video', { url: 'https://x/v.mp4', filename: 'v.mp4', length: 3, thumb: 'https://x/t.jpg' }, 'body', 'type')).toEqual({
      type: 'video',
      url: 'https://x/v.mp4',
      filename: 'v.mp4',
      length: 3,
      thumb: 'https://x/t.jpg',
    });
  });

  it('names the field that is wrong', () => {
    expect(() => normaliseBody('gif', {}, 'body', 'type')).toThrow(/type: unknown message type "gif"/);
    expect(() => normaliseBody('txt', { msg: '' }, 'bodies[0]', 'bodies[0].type')).toThrow(/bodies\[0\]\.msg/);
    expect(() => normaliseBody('file', { url: 'javascript:alert(1)', filename: 'x' }, 'body', 'type')).toThrow(/body\.url/);
    expect(() => normaliseBody('audio', { url: 'http://x/a', filename: 'a', length: -1 }, 'body', 'type')).toThrow(/body\.length/);
  });
});

describe('sensitive words', () => {
  it('match case-insensitively inside text and addresses, not other fields', () => {
    const words = ['spam', 'bad word'];
    expect(findSensitiveWord(words, [{ type: 'txt', msg: 'Total SPAMMER' }])).toBe('spam');
    expect(findSensitiveWord(words, [{ type: 'loc', lat: 1, lng: 2, addr: 'Bad Word street' }])).toBe('bad word');
    expect(findSensitiveWord(words, [{ type: 'img', url: 'https://spam.example/x.png', filename: 'x' }])).toBeUndefined();
    expect(findSensitiveWord([], [{ type: 'txt', msg: 'spam' }])).toBeUndefined();
  });
});
