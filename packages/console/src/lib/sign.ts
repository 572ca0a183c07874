/**
 * The send-message signature (docs/channel.md §2), computed in the browser for the "try it"
 * panel: MD5 of the body bytes, the string to sign, HMAC-SHA256 with WebCrypto, base64.
 */
import { md5Hex } from './md5.js';

export interface SignInput {
  clientId: string;
  clientSecret: string;
  method: string;
  path: string;
  expires: number;
  body: string;
}

export interface Signed {
  md5: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));

export async function signSendMessage(input: SignInput): Promise<Signed> {
  const encoder = new TextEncoder();
  const md5 = md5Hex(encoder.encode(input.body));
  const stringToSign = [input.method, input.path, String(input.expires), md5].join('\n');
  const key = await crypto.subtle.importKey('raw', encoder.encode(input.clientSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const digest = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(stringToSign)));
  const signature = toBase64(digest);
  return { md5, stringToSign, signature, authorization: `hmac ${input.clientId}:${signature}` };
}

/** A shell-safe single-quoted string. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlCommand(url: string, expires: number, authorization: string, body: string): string {
  return [
    `curl -X POST ${quote(url)}`,
    `  -H ${quote('Content-Type: application/json')}`,
    `  -H ${quote(`X-Auth-Expires: ${expires}`)}`,
    `  -H ${quote(`Authorization: ${authorization}`)}`,
    `  --data-binary ${quote(body)}`,
  ].join(' \\\n');
}
