import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { LoginBackoff } from './login-backoff.js';
import type { PasswordPool } from './password-pool.js';

const PARAMS = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, PARAMS.keylen, { N: PARAMS.N, r: PARAMS.r, p: PARAMS.p });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashB64, 'base64');
  const key = await scryptAsync(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;
/** A hash of a random password: verified against when the user does not exist, to even out timing. */
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(randomBytes(16).toString('hex')));

/**
 * Hashing and checking through the bounded pool (password-pool.ts), with the back-off asked
 * first (login-backoff.ts). Every password hash and check of the service goes through here.
 */
export class Passwords {
  constructor(
    readonly pool: PasswordPool,
    readonly backoff: LoginBackoff,
  ) {}

  /** A new password's hash; these wait in a lane of their own, apart from sign-ins. */
  hash(password: string): Promise<string> {
    return this.pool.run(() => hashPassword(password), 'new-passwords');
  }

  /**
   * One guess at `account`'s password from `ip`: refused with 429 while either backs off,
   * else checked (against a dummy hash when the account does not exist, to even out timing).
   * Answers whether it matched; the back-off learns the outcome. `lane` is where it waits for the
   * pool (`console`, `im:<app id>`); `limitedCode` is the 429's code on the caller's surface.
   */
  async attempt(
    account: string,
    ip: string,
    password: string,
    stored: string | undefined,
    options: { lane: string; limitedCode?: 'rate_limited' | 'reach_limit' },
  ): Promise<boolean> {
    const attempt = this.backoff.begin(account, ip, options.limitedCode);
    let ok: boolean;
    try {
      const hash = stored ?? (await dummyHash());
      ok = (await this.pool.run(() => verifyPassword(password, hash), options.lane)) && stored !== undefined;
    } catch (error) {
      // Refused by the pool, or the check failed: not a guess, so not counted against anyone.
      this.backoff.end(attempt, undefined);
      throw error;
    }
    this.backoff.end(attempt, ok);
    return ok;
  }
}
