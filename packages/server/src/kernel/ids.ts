import { hash, randomBytes, randomUUID } from 'node:crypto';

export const uuid = (): string => randomUUID();

/** URL-safe random token with `bytes` bytes of entropy. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Lower-case hex string of `bytes` random bytes. */
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * Short request id for log correlation: a random per-process prefix and a counter, so ids from
 * several instances do not collide and no randomness is drawn per request (it showed in profiles).
 */
const processPrefix = randomBytes(4).toString('hex');
let seq = 0;
export const requestId = (): string => `${processPrefix}-${(seq++).toString(36)}`;

/** Lower-case hex SHA-256 of a token (stored in place of the token); one-shot, no Hash object. */
export const sha256Hex = (value: string): string => hash('sha256', value, 'hex');
