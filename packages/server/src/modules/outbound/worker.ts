/**
 * The outbound worker thread (see threaded.ts): runs an UndiciOutboundSender and answers each
 * batch of requests the main thread posts with batches of results, one per request id.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Batcher } from '../../kernel/batcher.js';
import type { OutboundRequest, OutboundResult } from './ports.js';
import { noResponse, UndiciOutboundSender, type UndiciSenderOptions } from './sender.js';

export type WorkerCall = Array<[id: number, request: OutboundRequest]>;
export type WorkerResults = Array<[id: number, result: OutboundResult]>;
/** Results, or 'ready' once when the worker has loaded. */
export type WorkerAnswer = WorkerResults | 'ready';

const port = parentPort;
if (!port) throw new Error('outbound worker: run me with new Worker()');

const sender = new UndiciOutboundSender(workerData as UndiciSenderOptions);

// Results that complete in the same turn go back in one message.
const answers = new Batcher<[id: number, result: OutboundResult]>({ run: (batch: WorkerResults) => port.postMessage(batch) });
const answer = (id: number, result: OutboundResult) => answers.push([id, result]);

// Loaded: the main thread may stop waiting for a warm-up.
port.postMessage('ready');

port.on('message', (message: WorkerCall | 'close') => {
  if (message === 'close') {
    // In-flight requests end (or time out) before the pool closes; their results still go back.
    void sender.close().finally(() => {
      answers.flush();
      port.close();
    });
    return;
  }
  for (const [id, request] of message) {
    sender.post(request).then(
      (result) => answer(id, result),
      (error: unknown) => answer(id, noResponse({ kind: 'connection', message: String(error) })),
    );
  }
});
