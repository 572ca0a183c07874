/**
 * The durable hand-off (issue item 8): a message accepted by REST is committed with its fan-out
 * job, so killing the process (SIGKILL) before the fan-out ran loses nothing; the restarted
 * process delivers it. The first process runs with PARLEY_WORKERS=false so "before the fan-out"
 * is certain, not a race.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const PASSWORD = 'crash-test-admin-pw';

interface Running {
  child: ChildProcess;
  url: string;
}

function start(db: TestDatabase, env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: db.config.dataDir,
      ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
      PARLEY_ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
}

async function http(url: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.each(ENGINES)('IM crash recovery on %s', (engine) => {
  let db: TestDatabase;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it in pretest)`);
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await kill9(child);
    await db?.destroy();
  });

  it('delivers a message accepted before a kill -9 that came before its fan-out', async () => {
    const first = await start(db, { PARLEY_WORKERS: 'false' });
    children.push(first.child);
    const login = await http(first.url, 'POST', '/api/login', { username: 'admin', password: PASSWORD });
    const root = login.body.entity.access_token as string;
    const created = await http(first.url, 'POST', '/management/apps', { org_name: 'crash', app_name: 'test' }, root);
    const { client_id, client_secret } = created.body.data;
    const token = await http(first.url, 'POST', '/crash/test/token', { grant_type: 'client_credentials', client_id, client_secret });
    const admin = token.body.access_token as string;
    expect((await http(first.url, 'POST', '/crash/test/users', [{ username: 'alice', password: 'pw-alice' }, { username: 'bob', password: 'pw-bob' }], admin)).status).toBe(200);

    const sent = await http(first.url, 'POST', '/crash/test/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'survives a crash' } }, admin);
    expect(sent.status).toBe(200);
    const msgId = sent.body.data.bob as string;
    // Accepted, but not fanned out (no workers). Reading bob's offline store here would run the
    // fan-out itself (read-after-write), so the test leaves it alone.
    await kill9(first.child);

    const second = await start(db, {});
    children.push(second.child);
    const bobToken = (await http(second.url, 'POST', '/crash/test/token', { grant_type: 'password', username: 'bob', password: 'pw-bob' })).body.access_token as string;
    const bob = await SocketClient.connect(second.url, '/crash/test', bobToken);
    const frame = await bob.waitText('survives a crash', 15_000);
    expect(frame).toMatchObject({ msg_id: msgId, from: 'alice', to: 'bob', chat_type: 'chat' });
    await bob.close();
    // Delivered exactly once: nothing left stored for bob.
    const again = (await http(second.url, 'POST', '/crash/test/token', { grant_type: 'client_credentials', client_id, client_secret })).body.access_token as string;
    // Marked delivered once written to bob's socket: the mark may land just after the frame.
    await waitFor(async () => (await http(second.url, 'GET', '/crash/test/users/bob/offline_msg_count', undefined, again)).body.data.bob, (n) => n === 0);
    expect(bob.of('message').filter((f) => f.msg_id === msgId)).toHaveLength(1);
    await kill9(second.child);
  });
});
