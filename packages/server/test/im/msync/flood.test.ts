/**
 * A flood of messages at msync sockets that never pull, against Parley running as its own process
 * (so its resident memory is what is measured), on both engines: one user's 50 sockets and 2,000
 * messages of 4.5 KiB to themself. Each socket's outbox is bounded in bytes (here 64 KiB), so every
 * socket is dropped as a slow consumer early and the server's memory stays bounded; unbounded
 * (by count alone, 2,000 a socket) the same flood held about 50 × 2,000 × 4.5 KiB.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_SLOW_CONSUMER } from '../../../src/modules/im/socket-limits.js';
import { Command } from '../../../src/modules/im/msync/schema.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { RawMsync } from '../../helpers/msync.js';
import { startParley, type ParleyProcess } from '../../helpers/process.js';

const SOCKETS = 50;
const MESSAGES = 2_000;
const ADMIN_PASSWORD = 'flood-admin-pw';

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

async function json(url: string, init: RequestInit & { token?: string } = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  });
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

describe.each(ENGINES)('a flood at msync sockets that never pull, on %s', (engine) => {
  let db: TestDatabase;
  let parley: ParleyProcess;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    parley = await startParley({
      DATA_DIR: db.config.dataDir,
      ...(db.config.databaseUrl ? { DATABASE_URL: db.config.databaseUrl } : {}),
      PARLEY_ADMIN_PASSWORD: ADMIN_PASSWORD,
      PARLEY_SEED_DEMO: 'false',
      PARLEY_IM_SOCKET_BUFFER_BYTES: String(64 * 1024),
      PARLEY_IM_SOCKETS_PER_USER: String(SOCKETS),
      PARLEY_IM_RATE_LIMIT: '1000000',
      PARLEY_IM_USER_SEND_RATE_LIMIT: '1000000',
    });
  });
  afterAll(async () => {
    await parley?.stop();
    await db?.destroy();
  });

  it(`drops each of ${SOCKETS} sockets as a slow consumer, and keeps the server's memory bounded`, async () => {
    const base = parley.url;
    const admin = ((await json(`${base}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) })).entity as { access_token: string }).access_token;
    const created = (await json(`${base}/management/apps`, { method: 'POST', token: admin, body: JSON.stringify({ org_name: 'flood', app_name: 'app' }) })).data as { client_id: string; client_secret: string };
    const appToken = (await json(`${base}/flood/app/token`, { method: 'POST', body: JSON.stringify({ grant_type: 'client_credentials', ...created }) })).access_token as string;
    await json(`${base}/flood/app/users`, { method: 'POST', token: appToken, body: JSON.stringify({ username: 'flood', password: 'flood-pw-1' }) });
    const userToken = (await json(`${base}/flood/app/token`, { method: 'POST', body: JSON.stringify({ grant_type: 'password', username: 'flood', password: 'flood-pw-1' }) })).access_token as string;

    const sockets: RawMsync[] = [];
    for (let i = 0; i < SOCKETS; i++) {
      const raw = await RawMsync.connect(base);
      raw.provision('flood#app', 'flood', userToken, `r${i}`);
      await waitFor(() => raw.of(Command.PROVISION).length, (n) => n === 1);
      raw.unread();
      sockets.push(raw);
    }
    await waitFor(() => sockets.every((s) => s.of(Command.UNREAD).length === 1), Boolean);
    const before = rssOf(parley.proc.pid!);

    const body = JSON.stringify({ from: 'flood', to: ['flood'], type: 'txt', body: { msg: 'x'.repeat(4_500) } });
    let next = 0;
    const worker = async () => {
      while (next < MESSAGES) {
        next++;
        await json(`${base}/flood/app/messages/users`, { method: 'POST', token: appToken, body });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));

    for (const raw of sockets) expect((await waitFor(() => raw.closed, Boolean, 10_000))?.code).toBe(CLOSE_SLOW_CONSUMER);
    const grown = rssOf(parley.proc.pid!) - before;
    // Held by count alone this was about 450 MB; the young generation alone may take ~100 MB.
    expect(grown).toBeLessThan(160 * 1024 * 1024);
  });
});
