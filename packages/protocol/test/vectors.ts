/**
 * Loads the test vectors of the contract (send-message HMAC, Standard Webhooks, callback security,
 * date keys, ban durations): `vectors.json` beside this file, a copy kept in the repository so a
 * clone tests on its own. PARLEY_VECTORS checks against another file instead.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export function vectorsPath(): string {
  const file = process.env.PARLEY_VECTORS || fileURLToPath(new URL('./vectors.json', import.meta.url));
  if (!fs.existsSync(file)) throw new Error(`vectors.json not found at ${file}`);
  return file;
}

export interface HmacVector {
  clientId: string;
  clientSecret: string;
  method: string;
  path: string;
  xAuthExpires: number;
  body: string;
  md5: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

export interface WebhookVector {
  key: string;
  id: string;
  timestamp: number;
  body: string;
  signature: string;
}

export function loadVectors(): { hmac_send_message: HmacVector[]; standard_webhooks: WebhookVector[] } {
  return JSON.parse(fs.readFileSync(vectorsPath(), 'utf8'));
}
