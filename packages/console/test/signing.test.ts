/** The console's browser-side signing (MD5 + WebCrypto HMAC) against the shared vectors. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadVectors } from '../../protocol/test/vectors.js';
import { md5Hex } from '../src/lib/md5.js';
import { curlCommand, signSendMessage } from '../src/lib/sign.js';

const vectors = loadVectors().hmac_send_message;

describe('console signing', () => {
  it.each(vectors.map((v, i) => [i, v] as const))('matches hmac_send_message vector %i', async (_i, v) => {
    const signed = await signSendMessage({ clientId: v.clientId, clientSecret: v.clientSecret, method: v.method, path: v.path, expires: v.xAuthExpires, body: v.body });
    expect(signed).toEqual({ md5: v.md5, stringToSign: v.stringToSign, signature: v.signature, authorization: v.authorization });
  });

  it('md5 agrees with node:crypto across block boundaries', () => {
    for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 1000]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 0xff);
      expect(md5Hex(bytes)).toBe(createHash('md5').update(bytes).digest('hex'));
    }
    expect(md5Hex(new TextEncoder().encode('abc'))).toBe('900150983cd24fb0d6963f7d28e17f72');
  });

  it('quotes the body for the shell', () => {
    const cmd = curlCommand('http://h/p', 5, 'hmac a:b', `{"msg":"it's"}`);
    expect(cmd).toContain(`--data-binary '{"msg":"it'\\''s"}'`);
  });
});
