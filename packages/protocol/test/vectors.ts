/**
 * Loads the shared test vectors. The file lives beside the repository (`<repo>/../shared`);
 * PARLEY_VECTORS overrides the location.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function vectorsPath(): string {
  const candidates = [process.env.PARLEY_VECTORS, path.join(repoRoot, '..', 'shared', 'vectors.json'), '/work/shared/vectors.json'];
  for (const candidate of candidates) if (candidate && fs.existsSync(candidate)) return candidate;
  throw new Error(`vectors.json not found; tried ${candidates.filter(Boolean).join(', ')}`);
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
