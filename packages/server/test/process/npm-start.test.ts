/**
 * `npm start` as a process manager or container runtime runs it: the service prints one line
 * saying where the console and the API docs are once it is ready, and SIGTERM or SIGINT sent to
 * the npm process (not to the server) stops the server gracefully and leaves no process behind.
 *
 * npm forwards the signal to the shell that runs the start script; the script `exec`s node, so
 * the shell is the server, and the signal reaches it. (A shell that forks node instead dies of the
 * signal and leaves the server running as an orphan.)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const READY = /Parley ready: console (http:\/\/127\.0\.0\.1:(\d+))\/console · API docs (http:\/\/127\.0\.0\.1:\d+)\/docs/;

const created: TestDatabase[] = [];
const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
  leftovers.clear();
});
afterAll(async () => {
  for (const db of created) await db.destroy();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `pid`, read from `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

interface NpmStart {
  npm: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * `npm start` on an empty data directory and a free port. `--ignore-scripts` leaves out only
 * `prestart` (the build check: the suites run the build `npm test` made); npm runs the start
 * script itself exactly as `npm start` does.
 */
function npmStart(dataDir: string): NpmStart {
  const npm = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  npm.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
  return { npm, output: () => output, exited };
}

async function waitForReady(run: NpmStart, timeoutMs = 45_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void run.exited.then(() => (exited = true));
  for (;;) {
    const match = READY.exec(run.output());
    if (match) return match;
    if (exited || Date.now() > deadline) throw new Error(`no ready line:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('prints where to go once ready, and %s to npm stops the server cleanly with nothing left running', async (signal) => {
    const db = await createTestDatabase('sqlite');
    created.push(db);
    const run = npmStart(db.config.dataDir);
    const [, base, port, docs] = await waitForReady(run);

    // The line names the address the server is bound to: both pages answer there.
    expect(Number(port)).toBeGreaterThan(0);
    expect((await fetch(`${base}/console`, { redirect: 'manual' })).status).toBeLessThan(500);
    expect((await fetch(`${docs}/docs`)).status).toBe(200);
    // Printed once, after the start-up lines.
    expect(run.output().match(/Parley ready:/g)).toHaveLength(1);

    const below = descendants(run.npm.pid as number);
    for (const pid of below) leftovers.add(pid);
    expect(below.length).toBeGreaterThan(0);

    const started = Date.now();
    run.npm.kill(signal);
    expect(await run.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);

    // Graceful: the server logged its shutdown for this signal, and nothing of it runs on.
    expect(run.output()).toContain(`"signal":"${signal}","msg":"shutting down"`);
    expect(below.filter(alive)).toEqual([]);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 90_000);
});
