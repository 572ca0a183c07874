/**
 * Parley from the build (packages/server/dist/main.js) as a child process, as it runs in
 * production: the load generator and receivers of a bench do not share its event loop.
 * `stop()` sends SIGTERM and waits for the exit; the data directory is the caller's.
 * BENCH_PROFILE=dir writes its CPU profile there.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../packages/server/dist/node-flags.js';
import { freePort } from './load.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** @param {{ dataDir: string, env?: Record<string, string> }} opts */
export async function startParleyProcess({ dataDir, env = {} }) {
  const main = path.join(ROOT, 'packages/server/dist/main.js');
  if (!fs.existsSync(main)) throw new Error('packages/server/dist/main.js is missing: run npm run build');
  const port = await freePort();
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, main], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Parley exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${origin}/readyz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('Parley did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  const call = async (method, url, token, payload) => {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  return {
    origin,
    pid: child.pid,
    call,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
