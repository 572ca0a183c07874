// A worker for worker-file.test.ts: TypeScript that imports another TypeScript file by its `.js` name.
import { parentPort, workerData } from 'node:worker_threads';
import { shout } from './shout.js';

parentPort?.postMessage(shout(workerData as string));
