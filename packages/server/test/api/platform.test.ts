/**
 * Cross-cutting behaviour of a built app: bootstrap once, health and metrics, OpenAPI, request
 * ids, log redaction, and the Redis-backed rate-limit store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { configFrom } from '../../src/config/index.js';
import { ADMIN, call, createTestApp, login } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/engines.js';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.destroy();
});

describe.each(ENGINES)('platform on %s', (engine) => {
  it('bootstraps the admin and demo tenant once, however often it boots', async () => {
    const db = await createTestDatabase(engine);
    dbs.push(db);
    let demo: { admin: string; agent: string } | undefined;
    for (let boot = 0; boot < 2; boot++) {
      const t = await createTestApp(engine, { db, clock: new FakeClock() });
      expect(t.app.parley.bootstrap.createdAdmin).toBe(boot === 0);
      if (boot === 0) demo = t.app.parley.bootstrap.demoPasswords;
      else expect(t.app.parley.bootstrap.demoPasswords).toBeUndefined();
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenants = await call(t.app, root, 'GET', '/api/tenants');
      expect(tenants.body.entities).toHaveLength(1);
      expect(tenants.body.entities[0]).toMatchObject({ name: 'Demo', edition: 'flagship' });
      // The demo admin and agent have the passwords generated on the first boot.
      await login(t.app, 'demo-admin@parley.local', demo!.admin);
      await login(t.app, 'demo-agent@parley.local', demo!.agent);
      await t.close();
    }
  });

  it('serves health, readiness, metrics by route and status, and the OpenAPI document', async () => {
    const t = await createTestApp(engine);
    try {
      expect((await t.app.inject('/healthz')).statusCode).toBe(200);
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks.storage).toContain(engine);
      await t.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'x', password: 'y' } });
      const metrics = await t.app.inject('/metrics');
      expect(metrics.body).toMatch(/parley_http_requests_total\{method="POST",route="\/api\/login",status="401"\} 1/);
      expect(metrics.body).toContain('parley_http_request_duration_seconds_bucket');
      const openapi = (await t.app.inject('/openapi.json')).json();
      expect(openapi.openapi).toMatch(/^3\./);
      expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/api/login', '/api/tenants', '/api/tenants/{tenantId}/agents']));
      expect(openapi.paths['/api/tenants'].post.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['name', 'edition', 'admin']));
      expect((await t.app.inject('/docs/')).statusCode).toBe(200);
      const res = await t.app.inject('/healthz');
      expect(res.headers['x-request-id']).toBeTruthy();
    } finally {
      await t.close();
    }
  });

  it('reports not ready when storage is unreachable', async () => {
    const t = await createTestApp(engine);
    await t.app.parley.storage.close();
    const ready = await t.app.inject('/readyz');
    expect(ready.statusCode).toBe(503);
    await t.app.close().catch(() => undefined);
    await t.db.destroy();
  });
});

describe('logging', () => {
  it('never writes passwords, tokens or secrets', async () => {
    const db = await createTestDatabase('sqlite');
    dbs.push(db);
    let logged = '';
    const stream = { write: (line: string) => void (logged += line) };
    const config = configFrom({ DATA_DIR: db.config.dataDir, LOG_LEVEL: 'trace', PARLEY_ADMIN_USERNAME: 'root', PARLEY_ADMIN_PASSWORD: 'root-password-1' });
    const app = await buildApp(config, { logStream: stream });
    const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'root', password: 'root-password-1' } });
    const token = res.json().entity.access_token as string;
    await app.inject({ method: 'GET', url: '/api/tenants', headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'root', password: 'wrong-password-9' } });
    // Objects handed to the logger by modules are redacted too.
    app.log.info({ password: 'hunter2-secret', clientSecret: 'cs-123456', rule: { secret: 's3cr3t-v' }, req: { headers: { authorization: `Bearer ${token}` } } }, 'module line');
    await app.close();
    expect(logged).toContain('module line');
    expect(logged).toContain('[redacted]');
    for (const secret of [token, 'root-password-1', 'wrong-password-9', 'hunter2-secret', 'cs-123456', 's3cr3t-v']) expect(logged).not.toContain(secret);
  });
});

describe('rate limiting with Redis', () => {
  it('shares counters through Redis and answers 429 with Retry-After', async () => {
    const redisUrl = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await probe.connect();
    const db = await createTestDatabase('sqlite');
    dbs.push(db);
    // A namespace of its own: other suites share this Redis, so nothing here may flush it.
    const prefix = `parley-test-${process.pid}-${Date.now()}:`;
    const env = { DATA_DIR: db.config.dataDir, REDIS_URL: redisUrl, PARLEY_REDIS_PREFIX: prefix, PARLEY_API_RATE_LIMIT: '3', PARLEY_ADMIN_PASSWORD: 'root-password-1' };
    // Two app instances, one Redis: the limit is shared.
    const a = await buildApp(configFrom(env));
    const b = await buildApp(configFrom(env));
    const statuses: number[] = [];
    for (const app of [a, b, a, b]) statuses.push((await app.inject({ method: 'GET', url: '/api/tenants' })).statusCode);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[3]).toBe(429);
    const limited = await b.inject({ method: 'GET', url: '/api/tenants' });
    expect(limited.headers['retry-after']).toBeTruthy();
    expect(limited.json().errorCode).toBe('rate_limited');
    expect((await a.inject('/readyz')).json().checks).toHaveProperty('redis_ping');
    await a.close();
    await b.close();
    const keys = await probe.keys(`${prefix}*`);
    if (keys.length > 0) await probe.del(...keys);
    probe.disconnect();
  });
});
