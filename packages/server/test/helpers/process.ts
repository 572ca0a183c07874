/**
 * Runs the built service (`packages/server/dist/main.js`) as a child process, the way an
 * operator does, for tests of start-up, shutdown, crashes and restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../src/node-flags.js';

export const MAIN_JS = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ParleyProcess {
  proc: ChildProcess;
  /** Base URL once listening. */
  url: string;
  port: number;
  output(): string;
  /** Sends a signal and resolves with the exit code and the ms it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
  /** kill -9: no shutdown hooks run. */
  kill9(): Promise<void>;
}

export function runParley(env: Record<string, string>): { proc: ChildProcess; exited: Promise<{ code: number | null; output: string }> } {
  const proc = spawn(process.execPath, [...NODE_FLAGS, MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; output: string }>((resolve) => proc.on('exit', (code) => resolve({ code, output })));
  return { proc, exited };
}

/** Starts Parley and resolves once it listens (rejects if it exits or takes over `timeoutMs`). */
export async function startParley(env: Record<string, string>, timeoutMs = 20_000): Promise<ParleyProcess> {
  const { proc, exited } = runParley(env);
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Parley did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = () => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`Parley exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      const started = Date.now();
      proc.kill(signal);
      const { code } = await exited;
      return { code, ms: Date.now() - started };
    },
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
