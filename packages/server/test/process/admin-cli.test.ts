/**
 * `npm run admin -- reset-password <username>`: the built command (dist/admin-cli.js) run as an
 * operator does, against the database of a running app, on each engine.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTestApp, login, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

const ADMIN_JS = fileURLToPath(new URL('../../dist/admin-cli.js', import.meta.url));

describe.each(ENGINES)('admin reset-password on %s', (engine) => {
  let t: TestApp;
  /** The root account's password as the tests go. */
  let current: string = ADMIN.password;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Runs the command on the app's database; `stdin` is written and closed (empty when undefined). */
  function admin(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATA_DIR: t.db.config.dataDir };
    if (t.db.config.databaseUrl) env.DATABASE_URL = t.db.config.databaseUrl;
    const proc = spawn(process.execPath, [ADMIN_JS, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdin.end(stdin ?? '');
    return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
  }
  const loginStatus = async (password: string) => (await t.app.inject({ method: 'POST', url: '/api/login', payload: { username: ADMIN.username, password } })).statusCode;

  it('sets the password given on stdin, hashed as a sign-in checks it, and signs out every session of the account', async () => {
    const first = await login(t.app, ADMIN.username, current);
    const second = await login(t.app, ADMIN.username, current);
    expect((await call(t.app, first, 'GET', '/api/tenants')).status).toBe(200);

    const result = await admin(['reset-password', ' ROOT '], 'a-new-root-password\nignored second line\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Password of "root" (system_admin) set');
    expect(result.stdout).not.toContain('a-new-root-password');

    // Both tokens stopped working at once, in the running app.
    expect((await call(t.app, first, 'GET', '/api/tenants')).status).toBe(401);
    expect((await call(t.app, second, 'GET', '/api/tenants')).status).toBe(401);
    expect(await loginStatus(current)).toBe(401);
    expect(await loginStatus('a-new-root-password')).toBe(200);
    current = 'a-new-root-password';
  });

  it('generates a password when stdin is empty and prints it once', async () => {
    const result = await admin(['reset-password', 'root']);
    expect(result.code).toBe(0);
    const generated = /^ {4}(\S+)$/m.exec(result.stdout)?.[1];
    expect(generated).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await loginStatus(current)).toBe(401);
    expect(await loginStatus(generated as string)).toBe(200);
    current = generated as string;
  });

  it('refuses an unknown account and a short password, and changes nothing', async () => {
    const token = await login(t.app, ADMIN.username, current);
    const unknown = await admin(['reset-password', 'nobody'], 'long-enough-password\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no console account is named "nobody"');
    const short = await admin(['reset-password', 'root'], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('the password must be 8 to 256 characters');
    expect((await call(t.app, token, 'GET', '/api/tenants')).status).toBe(200);
    expect(await loginStatus(current)).toBe(200);
  });

  it('explains its usage on a wrong command', async () => {
    for (const args of [[], ['reset-password'], ['reset', 'root'], ['reset-password', 'root', 'extra']]) {
      const result = await admin(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('usage: npm run admin -- reset-password <username>');
    }
  });
});
