/**
 * Builds a real Parley app (no listening) on a fresh database of the given engine, with helpers
 * to sign in and call the console API.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { configFrom } from '../../src/config/index.js';
import type { Clock } from '../../src/kernel/clock.js';
import type { Engine } from '../../src/storage/index.js';
import { FakeClock } from './clock.js';
import { createTestDatabase, type TestDatabase } from './engines.js';

export const ADMIN = { username: 'root', password: 'root-password-1' } as const;

export interface TestApp {
  app: FastifyInstance;
  clock: Clock;
  db: TestDatabase;
  close(): Promise<void>;
}

export async function createTestApp(
  engine: Engine,
  options: { clock?: Clock; env?: Record<string, string>; db?: TestDatabase; deps?: Omit<AppDeps, 'clock'> } = {},
): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase(engine));
  const clock = options.clock ?? new FakeClock(Date.now());
  const config = configFrom({
    DATA_DIR: db.config.dataDir,
    ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
    PARLEY_ADMIN_USERNAME: ADMIN.username,
    PARLEY_ADMIN_PASSWORD: ADMIN.password,
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    ...options.env,
  });
  const app = await buildApp(config, { ...options.deps, clock });
  await app.ready();
  return {
    app,
    clock,
    db,
    close: async () => {
      await app.close();
      if (!options.db) await db.destroy();
    },
  };
}

export async function login(app: FastifyInstance, username: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`login ${username} failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { entity: { access_token: string } }).entity.access_token;
}

/** inject() with a bearer token; returns status and parsed JSON. */
export async function call(
  app: FastifyInstance,
  token: string | undefined,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await app.inject({
    method,
    url,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

/** Creates a tenant with an admin and returns the admin's token. */
export async function createTenant(
  app: FastifyInstance,
  rootToken: string,
  name: string,
  edition: 'flagship' | 'standard' = 'flagship',
): Promise<{ tenantId: number; adminToken: string; defaultQueueId: string }> {
  const username = `${name.toLowerCase().replace(/\W/g, '')}-admin@example.com`;
  const res = await call(app, rootToken, 'POST', '/api/tenants', {
    name,
    edition,
    admin: { username, password: 'tenant-admin-pw', nickname: `${name} admin` },
  });
  if (res.status !== 200) throw new Error(`create tenant failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { tenantId: res.body.entity.tenantId, adminToken: await login(app, username, 'tenant-admin-pw'), defaultQueueId: res.body.entity.defaultQueueId };
}
