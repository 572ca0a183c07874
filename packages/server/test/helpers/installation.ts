/**
 * An installation driven over HTTP as its users do (for backup, restore and copy tests): a
 * tenant with an association, an IM app with users and a callback rule, an uploaded file; then
 * the checks that the same credentials still work on another process, and every table's rows.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { callbackSecurity, sendMessageAuthorization, signSendMessage, type CallbackRecord } from '@parley/protocol';
import { postgresCount, postgresTables, connectPostgres } from '../../src/storage/postgres/table-io.js';
import { openExistingSqlite, sqliteCount, sqliteTables } from '../../src/storage/sqlite/table-source.js';
import type { CallbackReceiver } from './callback-receiver.js';
import type { TestDatabase } from './engines.js';
import { waitFor } from './im.js';

export const ROOT = { username: 'ops', password: 'ops-password-1' } as const;
export const IM_PASSWORD = 'pw-123456';

export interface Fixture {
  association: { tenantId: number; clientId: string; clientSecret: string; postMessageUrl: string };
  im: { base: string; clientId: string; clientSecret: string };
  rule: { secret: string };
  media: { path: string; bytes: Buffer };
}

/** The built operator command (dist/admin-cli.js). */
const ADMIN_JS = fileURLToPath(new URL('../../dist/admin-cli.js', import.meta.url));

export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of `npm start` / `npm run admin` on a test database. */
export function envOf(db: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: db.config.dataDir,
    ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
    PARLEY_ADMIN_USERNAME: ROOT.username,
    PARLEY_ADMIN_PASSWORD: ROOT.password,
    PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
    PARLEY_API_RATE_LIMIT: '100000',
    PARLEY_IM_RATE_LIMIT: '100000',
    PARLEY_IM_USER_SEND_RATE_LIMIT: '100000',
    ...extra,
  };
}

/** Runs `npm run admin -- …` as an operator does, with `env` only. */
export function admin(env: Record<string, string>, args: string[]): Promise<AdminRun> {
  const proc = spawn(process.execPath, [ADMIN_JS, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read envelope fields freely
type Body = Record<string, any>;

export async function json(url: string, method: string, body?: unknown, token?: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : {} };
}

export async function rootToken(url: string): Promise<string> {
  const res = await json(`${url}/api/login`, 'POST', ROOT);
  expect(res.status).toBe(200);
  return res.body.entity.access_token as string;
}

/** Posts a customer message signed with the association's Client Secret. */
export async function sendCustomer(url: string, association: Fixture['association'], from: string, text: string): Promise<number> {
  const body = JSON.stringify({ bodies: [{ type: 'txt', msg: text }], origin_type: 'rest', from, timestamp: Date.now() });
  const signature = signSendMessage(association.clientSecret, { method: 'POST', path: association.postMessageUrl, expires: -1, body });
  const res = await fetch(`${url}${association.postMessageUrl}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; utf-8', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(association.clientId, signature) },
    body,
  });
  await res.text();
  return res.status;
}

export async function appToken(url: string, im: Fixture['im']): Promise<string> {
  const res = await json(`${url}${im.base}/token`, 'POST', { grant_type: 'client_credentials', client_id: im.clientId, client_secret: im.clientSecret });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

export async function sendIm(url: string, im: Fixture['im'], token: string, text: string): Promise<number> {
  return (await json(`${url}${im.base}/messages/users`, 'POST', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: text } }, token)).status;
}

export async function populate(url: string, callbackUrl: string): Promise<Fixture> {
  const root = await rootToken(url);
  const tenant = await json(`${url}/api/tenants`, 'POST', { name: 'Moving', edition: 'flagship', admin: { username: 'moving-admin@example.com', password: 'tenant-admin-pw', nickname: 'Moving admin' } }, root);
  expect(tenant.status, JSON.stringify(tenant.body)).toBe(200);
  const tenantId = tenant.body.entity.tenantId as number;
  const admin = (await json(`${url}/api/login`, 'POST', { username: 'moving-admin@example.com', password: 'tenant-admin-pw' })).body.entity.access_token as string;
  const assoc = await json(`${url}/api/tenants/${tenantId}/rest/channels`, 'POST', { name: 'shop', callback_url: 'https://example.com/hook' }, admin);
  expect(assoc.status, JSON.stringify(assoc.body)).toBe(200);
  const association = assoc.body.entity as Fixture['association'];
  expect(await sendCustomer(url, association, 'customer-1', 'hello before')).toBe(200);

  const app = (await json(`${url}/management/apps`, 'POST', { org_name: 'acme', app_name: 'moving' }, root)).body.data as Body;
  const im = { base: '/acme/moving', clientId: app.client_id as string, clientSecret: app.client_secret as string };
  const token = await appToken(url, im);
  expect((await json(`${url}${im.base}/users`, 'POST', [{ username: 'alice', password: IM_PASSWORD }, { username: 'bob', password: IM_PASSWORD }], token)).status).toBe(200);
  expect((await json(`${url}${im.base}/callbacks/service`, 'PUT', { enabled: true, store_failed: true }, token)).status).toBe(200);
  const rule = await json(`${url}${im.base}/callbacks/rules`, 'POST', { name: 'main', url: callbackUrl, event_types: ['chat'] }, token);
  expect(rule.status, JSON.stringify(rule.body)).toBe(200);
  expect(await sendIm(url, im, token, 'stored for bob')).toBe(200);

  const bytes = Buffer.from('\x89PNG\r\n\x1a\n-a-small-file');
  const boundary = '----parley-backup';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.png"\r\nContent-Type: image/png\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = await fetch(`${url}/api/tenants/${tenantId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: payload,
  });
  expect(uploaded.status).toBe(200);
  const media = ((await uploaded.json()) as Body).entity.url as string;
  return { association, im, rule: { secret: rule.body.data.secret as string }, media: { path: new URL(media).pathname, bytes } };
}

/**
 * The same credentials work on the process at `url`: the root password, a customer message signed
 * with the old Client Secret, the old IM passwords, a callback verifying with the old rule secret,
 * the uploaded file.
 */
export async function expectSameInstallation(url: string, fixture: Fixture, receiver: CallbackReceiver): Promise<void> {
  await rootToken(url);
  expect(await sendCustomer(url, fixture.association, 'customer-1', 'hello after')).toBe(200);
  for (const username of ['alice', 'bob']) {
    expect((await json(`${url}${fixture.im.base}/token`, 'POST', { grant_type: 'password', username, password: IM_PASSWORD })).status).toBe(200);
  }
  const token = await appToken(url, fixture.im);
  const before = receiver.requests.length;
  expect(await sendIm(url, fixture.im, token, 'after the move')).toBe(200);
  const requests = await waitFor(() => receiver.requests.slice(before), (r) => r.some((q) => (JSON.parse(q.body) as CallbackRecord).eventType === 'chat'), 20_000);
  for (const request of requests) {
    const record = JSON.parse(request.body) as CallbackRecord;
    expect(record.security).toBe(callbackSecurity(record.callId, fixture.rule.secret, record.timestamp));
  }
  const file = await fetch(`${url}${fixture.media.path}`);
  expect(file.status).toBe(200);
  expect(Buffer.from(await file.arrayBuffer()).equals(fixture.media.bytes)).toBe(true);
}

/** Rows of every table of an installation, read from the database itself. */
export async function tableCounts(config: { databaseUrl: string | undefined; dataDir: string }): Promise<Record<string, number>> {
  if (!config.databaseUrl) {
    const raw = openExistingSqlite(path.join(config.dataDir, 'parley.db'));
    try {
      return Object.fromEntries(sqliteTables(raw).map((t) => [t.name, sqliteCount(raw, t.name)]));
    } finally {
      raw.close();
    }
  }
  const client = await connectPostgres(config.databaseUrl);
  try {
    const counts: Record<string, number> = {};
    for (const t of await postgresTables(client)) counts[t.name] = await postgresCount(client, t.name);
    return counts;
  } finally {
    await client.end();
  }
}
