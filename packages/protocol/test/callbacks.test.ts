import { describe, expect, it } from 'vitest';
import { callbackSecurity, dateKey, isValidDateKey, verifyCallbackSecurity } from '../src/index.js';
import { loadCallbackVectors } from './callback-vectors.js';

const vectors = loadCallbackVectors();

describe('date keys (vectors date_keys_utc)', () => {
  it.each(vectors.date_keys_utc)('$iso -> $key', ({ ms, iso, key }) => {
    expect(new Date(ms).toISOString()).toBe(iso);
    expect(dateKey(ms)).toBe(key);
    expect(isValidDateKey(key)).toBe(true);
  });

  it('uses a configured zone when given one', () => {
    // 2021-09-09T13:10:31Z is 21:10 in Shanghai (UTC+8, no DST).
    expect(dateKey(1631193031254, 'Asia/Shanghai')).toBe('202109092110');
  });

  it.each(['20210909131', '202109091315', '202113091310', '202102301310', '202109092410', 'abcdefghijkl', '2021090913100'])(
    'rejects %s',
    (key) => expect(isValidDateKey(key)).toBe(false),
  );
});

describe('callback security (vectors callback_security)', () => {
  it.each(vectors.callback_security)('$callId', ({ callId, secret, timestamp, security }) => {
    expect(callbackSecurity(callId, secret, timestamp)).toBe(security);
    expect(verifyCallbackSecurity(callId, secret, timestamp, security)).toBe(true);
    expect(verifyCallbackSecurity(callId, `${secret}x`, timestamp, security)).toBe(false);
    expect(verifyCallbackSecurity(callId, secret, timestamp + 1, security)).toBe(false);
  });
});
