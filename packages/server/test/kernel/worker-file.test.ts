/** Workers started from the TypeScript sources run their current source, with no build. */
import { describe, expect, it } from 'vitest';
import { startSiblingWorker } from '../../src/kernel/worker-file.js';

describe('startSiblingWorker', () => {
  it('starts the .ts module next to a .ts caller through the TypeScript loader', async () => {
    const caller = new URL('./worker-file/caller.ts', import.meta.url).href;
    const worker = startSiblingWorker(caller, 'echo-worker', { workerData: 'hello' });
    const answer = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(answer).toBe('HELLO!');
  });

  it('picks the .js module next to a .js caller (the build)', async () => {
    const caller = new URL('./worker-file/caller.js', import.meta.url).href;
    const worker = startSiblingWorker(caller, 'missing-worker');
    const error = await new Promise<Error>((resolve) => worker.once('error', resolve));
    expect(String(error)).toContain('missing-worker.js');
  });
});
