/** The shared test vectors used by the callback suites (located by ./vectors.ts). */
import fs from 'node:fs';
import { vectorsPath } from './vectors.js';

export interface CallbackVectors {
  date_keys_utc: Array<{ ms: number; iso: string; key: string }>;
  callback_security: Array<{ callId: string; secret: string; timestamp: number; security: string }>;
  ban_durations_minutes: Record<string, number>;
  standard_webhooks: Array<{ key: string; id: string; timestamp: number; body: string; signature: string }>;
}

export function loadCallbackVectors(): CallbackVectors {
  return JSON.parse(fs.readFileSync(vectorsPath(), 'utf8')) as CallbackVectors;
}
