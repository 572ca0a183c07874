/**
 * The login back-off (per account and per IP, on the injected clock) and the bounded password
 * pool: on their own, then through console logins and IM password grants on both engines.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { LoginBackoff, LOGIN_BACKOFF_DEFAULTS } from '../../src/modules/accounts/login-backoff.js';
import { PasswordPool } from '../../src/modules/accounts/password-pool.js';
import { ADMIN, createTestApp } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, PASSWORD } from '../helpers/im.js';

/** The Retry-After of a refused `begin`, or 0 when it was admitted (and then closed as `ok`). */
function tryOnce(backoff: LoginBackoff, account: string, ip: string, ok: boolean): number {
  try {
    backoff.end(backoff.begin(account, ip), ok);
    return 0;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('rate_limited');
    return Number((error as AppError).headers['retry-after']);
  }
}

describe('LoginBackoff', () => {
  it('refuses an account after 5 failures, for a time that doubles up to 15 minutes, and resets on success', () => {
    const clock = new FakeClock();
    const backoff = new LoginBackoff(clock);
    for (let i = 0; i < 5; i++) expect(tryOnce(backoff, 'console:alice', `10.0.0.${i}`, false)).toBe(0);
    // Even the right password is not checked while the account backs off.
    expect(tryOnce(backoff, 'console:alice', '10.0.1.1', true)).toBe(1);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = tryOnce(backoff, 'console:alice', '10.0.1.1', false);
      expect(wait).toBeGreaterThan(0);
      waits.push(wait);
      clock.advance(wait * 1000);
      expect(tryOnce(backoff, 'console:alice', '10.0.1.1', false)).toBe(0);
    }
    expect(waits.slice(0, 6)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(Math.max(...waits)).toBe(15 * 60);
    // Other accounts are not affected.
    expect(tryOnce(backoff, 'console:bob', '10.0.2.1', true)).toBe(0);
    // A success (once the wait is over) starts the count over.
    clock.advance(15 * 60_000);
    expect(tryOnce(backoff, 'console:alice', '10.0.1.1', true)).toBe(0);
    for (let i = 0; i < 5; i++) expect(tryOnce(backoff, 'console:alice', '10.0.1.1', false)).toBe(0);
    expect(tryOnce(backoff, 'console:alice', '10.0.1.1', false)).toBe(1);
  });

  it('refuses an IP after 20 failures across accounts', () => {
    const backoff = new LoginBackoff(new FakeClock());
    for (let i = 0; i < LOGIN_BACKOFF_DEFAULTS.ipFailures; i++) expect(tryOnce(backoff, `console:user${i}`, '10.9.9.9', false)).toBe(0);
    expect(tryOnce(backoff, 'console:fresh', '10.9.9.9', true)).toBeGreaterThan(0);
    expect(tryOnce(backoff, 'console:fresh', '10.9.9.8', true)).toBe(0);
  });

  it('admits only as many parallel attempts as failures remain, so parallel guesses do not slip through', () => {
    const backoff = new LoginBackoff(new FakeClock());
    const open = Array.from({ length: 5 }, (_, i) => backoff.begin('im:app:carol', `10.1.0.${i}`));
    expect(() => backoff.begin('im:app:carol', '10.1.0.9')).toThrow(AppError);
    for (const attempt of open) backoff.end(attempt, false);
    expect(() => backoff.begin('im:app:carol', '10.1.0.9')).toThrow(AppError);
  });

  it('forgets failures spread more than the cap apart', () => {
    const clock = new FakeClock();
    const backoff = new LoginBackoff(clock);
    for (let i = 0; i < 8; i++) {
      expect(tryOnce(backoff, 'console:dave', '10.2.0.1', false)).toBe(0);
      clock.advance(16 * 60_000);
    }
  });
});

describe('PasswordPool', () => {
  it('never runs more than `concurrency` at once, queues up to `queue`, and refuses the rest with 503 and Retry-After', async () => {
    const pool = new PasswordPool({ concurrency: 2, queue: 3 });
    // One lane (the default) here: its queue is the bound.
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const work = () =>
      new Promise<void>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve();
        });
      });
    const admitted = Array.from({ length: 5 }, () => pool.run(work));
    await Promise.resolve();
    expect(pool.active).toBe(2);
    expect(pool.waiting).toBe(3);
    const refused = await pool.run(work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('service_unavailable');
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).headers['retry-after']).toBe('1');
    while (releases.length > 0 || pool.active > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(admitted);
    expect(most).toBe(2);
    expect(pool.peak).toBe(2);
    expect(pool.active).toBe(0);
  });
});

describe('PasswordPool lanes', () => {
  it('serves lanes in turn, each with its own queue, so a flood in one lane neither refuses nor delays another much', async () => {
    const pool = new PasswordPool({ concurrency: 1, queue: 3 });
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const work = (name: string) => () =>
      new Promise<void>((resolve) => {
        order.push(name);
        releases.push(resolve);
      });
    const all = [pool.run(work('flood-0'), 'im:demo')];
    for (let i = 1; i <= 3; i++) all.push(pool.run(work(`flood-${i}`), 'im:demo'));
    // The flood's lane is full; another lane still gets in.
    expect(await pool.run(work('flood-4'), 'im:demo').catch((e: AppError) => e.code)).toBe('service_unavailable');
    all.push(pool.run(work('console'), 'console'));
    expect(pool.waiting).toBe(4);
    while (order.length < 5 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
    // The console sign-in ran right after the hash that was running, ahead of the flood's queue.
    expect(order).toEqual(['flood-0', 'flood-1', 'console', 'flood-2', 'flood-3']);
    expect(pool.peak).toBe(1);
  });
});

describe.each(ENGINES)('password checks over HTTP on %s', (engine) => {
  it('console login backs off per account after 5 failures, with 429 and Retry-After before any hashing, and resets on success', async () => {
    const t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    const clock = t.clock as FakeClock;
    const attempt = async (password: string, ip: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: { username: ADMIN.username, password }, remoteAddress: ip });
      return { status: res.statusCode, code: res.json().errorCode as string | undefined, retryAfter: res.headers['retry-after'] };
    };
    try {
      for (let i = 0; i < 5; i++) expect((await attempt('wrong-password', '192.0.2.1')).status).toBe(401);
      const hashed = t.app.parley.passwords.pool.started;
      const refused = await attempt(ADMIN.password, '192.0.2.2');
      expect(refused).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: '1' });
      expect(t.app.parley.passwords.pool.started).toBe(hashed);
      clock.advance(1000);
      expect((await attempt('wrong-password', '192.0.2.1')).status).toBe(401);
      expect(await attempt(ADMIN.password, '192.0.2.2')).toMatchObject({ status: 429, retryAfter: '2' });
      clock.advance(2000);
      expect((await attempt(ADMIN.password, '192.0.2.2')).status).toBe(200);
      // Reset: five more failures are answered 401 before the next back-off.
      for (let i = 0; i < 5; i++) expect((await attempt('wrong-password', '192.0.2.1')).status).toBe(401);
      expect((await attempt('wrong-password', '192.0.2.1')).status).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('the IM password grant backs off the same way, answered 429 reach_limit', async () => {
    const t = await createTestApp(engine);
    try {
      const im = await createImApp(t.app, 'guard', 'grant');
      await createUsers(t.app, im, 'erin');
      const grant = async (password: string) => {
        const res = await t.app.inject({ method: 'POST', url: `${im.base}/token`, payload: { grant_type: 'password', username: 'erin', password }, remoteAddress: '192.0.2.50' });
        return { status: res.statusCode, code: res.json().error as string | undefined, retryAfter: res.headers['retry-after'] };
      };
      for (let i = 0; i < 5; i++) expect(await grant('not-her-password')).toMatchObject({ status: 400, code: 'invalid_grant' });
      expect(await grant(PASSWORD)).toMatchObject({ status: 429, code: 'reach_limit', retryAfter: '1' });
      (t.clock as FakeClock).advance(1000);
      expect((await grant(PASSWORD)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('hashes one at a time with concurrency 1, and refuses beyond the queue with 503 and Retry-After', async () => {
    const t = await createTestApp(engine, { env: { PARLEY_PASSWORD_HASH_CONCURRENCY: '1', PARLEY_PASSWORD_HASH_QUEUE: '1', PARLEY_API_RATE_LIMIT: '100000' } });
    try {
      const pool = t.app.parley.passwords.pool;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.app.inject({ method: 'POST', url: '/api/login', payload: { username: `nobody-${i}`, password: 'whatever-pw' }, remoteAddress: `192.0.2.${100 + i}` }),
        ),
      );
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(2);
      const overflow = answers.filter((a) => a.statusCode === 503);
      expect(overflow.length).toBeGreaterThan(0);
      expect(overflow[0]?.json().errorCode).toBe('service_unavailable');
      expect(overflow[0]?.headers['retry-after']).toBe('1');
      expect(pool.peak).toBe(1);
      expect(pool.active).toBe(0);
    } finally {
      await t.close();
    }
  });
});
