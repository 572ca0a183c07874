/**
 * A client generated from /openapi.json with a standard generator (openapi-typescript) type-checks
 * calls to the API: the login, an IM send, the signed send-message headers and the error
 * envelopes. Without the login's response schema the same calls no longer compile.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** Calls an integrator would write against the generated `paths` type. */
const CALLS = `
import type { paths } from './schema';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Fetcher = (url: string, init: { method: string; headers?: Record<string, string>; body?: string }) => Promise<{ status: number; json(): Promise<unknown> }>;

type Login = paths['/api/login']['post'];
export async function login(fetcher: Fetcher, body: Login['requestBody']['content']['application/json']): Promise<string> {
  const res = await fetcher('/api/login', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 200) {
    const failure = (await res.json()) as Json<Login['responses'][401]>;
    throw new Error(failure.errorCode + ': ' + failure.errorDescription);
  }
  const ok = (await res.json()) as Json<Login['responses'][200]>;
  const role: 'system_admin' | 'admin' | 'agent' = ok.entity.user.role;
  return ok.entity.access_token + role;
}
export const sample: Json<Login['responses'][200]> = {
  status: 'OK',
  entity: { access_token: 't', expires_in: 60, user: { id: 1, username: 'root', nickname: 'Root', role: 'system_admin', tenantId: null } },
};

type ImSend = paths['/{org}/{app}/messages/users']['post'];
export async function sendIm(fetcher: Fetcher, token: string, body: ImSend['requestBody']['content']['application/json']): Promise<string | undefined> {
  const res = await fetcher('/acme/shop/messages/users', { method: 'POST', headers: { authorization: 'Bearer ' + token }, body: JSON.stringify(body) });
  if (res.status === 400) throw new Error(((await res.json()) as Json<ImSend['responses'][400]>).error_description);
  const ok = (await res.json()) as Json<ImSend['responses'][200]>;
  return ok.data[body.to[0] ?? ''];
}

type Signed = paths['/api/tenants/{tenantId}/rest/channels/{channelId}/messages']['post'];
export const signedHeaders: Signed['parameters']['header'] = { 'x-auth-expires': '0' };
export const signedPath: Signed['parameters']['path'] = { tenantId: 1, channelId: 7 };
export const customerMessage: Signed['requestBody']['content']['application/json'] = {
  bodies: [{ type: 'txt', msg: 'hi' }],
  origin_type: 'rest',
  from: 'customer-42',
  timestamp: 0,
};
`;

/** Generates the client types from `doc` and compiles CALLS against them; the diagnostics, as text. */
async function typeCheck(doc: unknown): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-openapi-'));
  try {
    writeFileSync(path.join(dir, 'schema.ts'), astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0], { silent: true })));
    writeFileSync(path.join(dir, 'calls.ts'), CALLS);
    const program = ts.createProgram([path.join(dir, 'calls.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t?.close());

describe('a client generated from /openapi.json', () => {
  it('type-checks calls to the login, an IM send and the signed send-message API', async () => {
    expect(await typeCheck(doc)).toEqual([]);
  });

  it('no longer type-checks once the login response schema is gone', async () => {
    const broken = JSON.parse(JSON.stringify(doc));
    delete broken.paths['/api/login'].post.responses['200'].content;
    expect((await typeCheck(broken)).length).toBeGreaterThan(0);
  });
});
