/**
 * Starts a worker thread from a module file next to the caller.
 *
 * The service runs the build: the caller is a `.js` file and its worker is the `.js` file beside it.
 * Tests run the TypeScript sources: the caller is a `.ts` file, and its worker is the `.ts` file
 * beside it, loaded through tsx (a development dependency; typescript-loader.mjs registers it in
 * the worker), so a test always runs the worker's current source and never needs a build first.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The preload that lets a worker thread import TypeScript. */
const TYPESCRIPT_LOADER = new URL('./typescript-loader.mjs', import.meta.url).href;

/**
 * `callerUrl` is the caller's `import.meta.url`; `name` is the worker module's file name without
 * its extension (`'worker'` for `./worker.ts` or `./worker.js`).
 */
export function startSiblingWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSources = callerUrl.endsWith('.ts');
  const file = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, callerUrl);
  if (!fromSources) return new Worker(file, options);
  // A worker inherits the process's flags unless given its own: keep them, and add the loader.
  return new Worker(file, { ...options, execArgv: [...(options.execArgv ?? process.execArgv), '--import', TYPESCRIPT_LOADER] });
}
