/**
 * The service as an operator runs it: start on an empty data directory, readiness, data kept
 * across a restart, clean shutdown on SIGTERM, and a refused start on bad configuration.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { runParley, startParley } from '../helpers/process.js';

const created: TestDatabase[] = [];
afterAll(async () => {
  for (const db of created) await db.destroy();
});

async function json(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(ENGINES)('parley process on %s', (engine) => {
  it('is ready within 10 s on an empty database, keeps data across a restart, and exits 0 on SIGTERM within 5 s', async () => {
    const db = await createTestDatabase(engine);
    created.push(db);
    const env = {
      DATA_DIR: db.config.dataDir,
      ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
      PARLEY_ADMIN_USERNAME: 'ops',
      PARLEY_ADMIN_PASSWORD: 'ops-password-1',
    };
    const started = Date.now();
    const first = await startParley(env);
    let ready = 0;
    while (ready !== 200 && Date.now() - started < 10_000) ready = (await fetch(`${first.url}/readyz`)).status;
    expect(ready).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);

    const login = await json(`${first.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ops', password: 'ops-password-1' }) });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${login.body.entity.access_token}`, 'content-type': 'application/json' };
    const tenant = await json(`${first.url}/api/tenants`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Kept', edition: 'flagship', admin: { username: 'kept@example.com', password: 'kept-password', nickname: 'K' } }),
    });
    expect(tenant.status).toBe(200);

    const stopped = await first.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5_000);

    const second = await startParley(env);
    const again = await json(`${second.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'kept@example.com', password: 'kept-password' }) });
    expect(again.status).toBe(200);
    expect(again.body.entity.user.tenantId).toBe(tenant.body.entity.tenantId);
    // The bootstrap ran once: one demo tenant and the one created above.
    const list = await json(`${second.url}/api/tenants`, { headers: { authorization: `Bearer ${login.body.entity.access_token}` } });
    expect(list.body.entities.map((t: { name: string }) => t.name)).toEqual(['Demo', 'Kept']);
    expect((await second.stop('SIGINT')).code).toBe(0);
  });
});

describe('parley process configuration', () => {
  it('refuses PORT=abc with a non-zero exit naming PORT', async () => {
    const { exited } = runParley({ PORT: 'abc', DATA_DIR: '/tmp/parley-never-created' });
    const { code, output } = await exited;
    expect(code).not.toBe(0);
    expect(output).toContain('PORT');
    expect(output.trim().split('\n')).toHaveLength(1);
  });

  it('prints a generated admin password once, and it works', async () => {
    const db = await createTestDatabase('sqlite');
    created.push(db);
    const first = await startParley({ DATA_DIR: db.config.dataDir });
    const password = /generated password:\s+(\S+)/.exec(first.output())?.[1];
    expect(password).toBeTruthy();
    const login = await fetch(`${first.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    expect(login.status).toBe(200);
    expect((await first.stop()).code).toBe(0);
    const second = await startParley({ DATA_DIR: db.config.dataDir });
    expect(second.output()).not.toContain('generated password');
    await second.stop();
  });
});
