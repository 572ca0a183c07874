/**
 * The SDK installs as an integrator installs it: `npm pack` of @parley/protocol and @parley/sdk
 * (their `prepack` builds them), the two tarballs installed into an empty project, and a plain ESM
 * script there that sends a signed customer message to a running Parley and verifies the agent's
 * reply push. The project also type-checks a call against the packed declarations.
 *
 * The tarballs' two third-party dependencies (typebox, ws) are packed from the workspace's
 * installed copies and installed alongside, so `npm install --offline` needs no network; an
 * integrator's npm fetches them from the registry.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/kernel/clock.js';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../../server/test/helpers/app.js';
import { createAgent, createAssociation, type TestAgent, type TestAssociation } from '../../server/test/helpers/channel.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

/** The environment of the npm commands: this process's, without the variables of an npm that may have started the tests. */
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: npmEnv, maxBuffer: 16 * 1024 * 1024 });

/** Packs `targets` into `dir`; returns the tarball paths in order. */
async function pack(targets: string[], dir: string, extra: string[] = []): Promise<string[]> {
  const { stdout } = await npm(['pack', ...targets, '--pack-destination', dir, '--json', ...extra], ROOT);
  return (JSON.parse(stdout) as Array<{ filename: string }>).map((p) => path.join(dir, p.filename));
}

describe('the packed SDK in an empty project', () => {
  let work: string;
  let project: string;
  let t: TestApp;
  let base: string;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let assoc: TestAssociation;
  let agent: TestAgent;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sdk-pack-'));
    project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));

    t = await createTestApp('sqlite', { clock: systemClock });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Packed');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/not-yet');
    // Online before the message arrives: the conversation is handed to this agent at once.
    agent = await createAgent(t.app, tenant.adminToken, tenant.tenantId, { queueIds: [tenant.defaultQueueId], online: true });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('packs built files with types and a README, and nothing of the tests', async () => {
    const { stdout } = await npm(['pack', '-w', '@parley/protocol', '-w', '@parley/sdk', '--dry-run', '--json'], ROOT);
    for (const { name, files } of JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>) {
      const paths = files.map((f) => f.path);
      expect(paths, name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
      expect(paths.filter((p) => p.startsWith('test/') || p.endsWith('.tsbuildinfo')), name).toEqual([]);
    }
  }, 60_000);

  it('installs offline, type-checks, sends a signed message and verifies the agent reply push', async () => {
    const ours = await pack(['-w', '@parley/protocol', '-w', '@parley/sdk'], work);
    const theirs = await pack([path.join(ROOT, 'node_modules/typebox'), path.join(ROOT, 'node_modules/ws')], work, ['--ignore-scripts']);
    await npm(['install', ...ours, ...theirs, '--offline', '--no-audit', '--no-fund'], project);
    expect(fs.existsSync(path.join(project, 'node_modules/@parley/sdk/dist/index.js'))).toBe(true);

    // The packed declarations type a call, and refuse a wrong one.
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      [
        "import { ChannelClient, type AgentReplyPush } from '@parley/sdk';",
        "export const client = new ChannelClient({ baseUrl: 'http://127.0.0.1:8080', tenantId: 1, channelId: 2, clientId: 'id', clientSecret: 'secret' });",
        'export type Push = AgentReplyPush;',
        '// @ts-expect-error tenantId is a number',
        "new ChannelClient({ baseUrl: 'http://127.0.0.1:8080', tenantId: '1', channelId: 2, clientId: 'id', clientSecret: 'secret' });",
      ].join('\n'),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const types = ['--typeRoots', path.join(ROOT, 'node_modules/@types'), '--types', 'node'];
    await run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', ...types, 'check.ts'], { cwd: project });

    fs.copyFileSync(fileURLToPath(new URL('./fixtures/packed-client.mjs', import.meta.url)), path.join(project, 'client.mjs'));
    const env = { PATH: process.env.PATH ?? '', PARLEY_URL: base, TENANT_ID: String(assoc.tenantId), CHANNEL_ID: String(assoc.channelId), CLIENT_ID: assoc.clientId, CLIENT_SECRET: assoc.clientSecret };
    const script = spawn(process.execPath, ['client.mjs'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    let stderr = '';
    script.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let pending = '';
    const waiters: Array<() => void> = [];
    script.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        lines.push(JSON.parse(pending.slice(0, nl)) as Record<string, unknown>);
        pending = pending.slice(nl + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    const exited = new Promise<number | null>((resolve) => script.on('exit', (code) => resolve(code)));
    const line = async (key: string) => {
      for (;;) {
        const found = lines.find((l) => key in l);
        if (found) return found[key];
        if (script.exitCode !== null) throw new Error(`no "${key}" line: ${JSON.stringify(lines)} ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };

    // The script's listener becomes the association's callback address.
    const port = (await line('listening')) as number;
    const moved = await call(t.app, tenant.adminToken, 'PUT', `/api/tenants/${assoc.tenantId}/rest/channels/${assoc.channelId}`, { callback_url: `http://127.0.0.1:${port}/parley` });
    expect(moved.status).toBe(200);

    // The signed send reached Parley and opened a conversation.
    const sent = (await line('sent')) as { msg_id: string; conversation_id: number; duplicate: boolean };
    expect(sent.duplicate).toBe(false);
    const messages = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${assoc.tenantId}/conversations/${sent.conversation_id}/messages`);
    expect(JSON.stringify(messages.body)).toContain('Hello from the packed SDK');

    // The agent answers; the script verifies the push's signature.
    const reply = await call(t.app, agent.token, 'POST', `/api/tenants/${assoc.tenantId}/conversations/${sent.conversation_id}/messages`, { bodies: [{ type: 'txt', msg: 'Your order ships today' }] });
    expect(reply.status).toBe(200);
    expect(await line('push')).toEqual({ deliveryId: expect.any(String), to: 'packed-sdk-customer', text: 'Your order ships today', refusedWithAnotherSecret: true });
    expect(await exited).toBe(0);
    expect(lines.filter((l) => 'refused' in l || 'sendFailed' in l)).toEqual([]);
  }, 120_000);
});
