/**
 * The outbound sender on a worker thread of its own.
 *
 * Sending is most of what a callback or a reply push costs the process: writing the request,
 * parsing the answer, the pool's bookkeeping (about 100 µs per request on the reference machine,
 * against about 15 µs for the hand-over). On the main thread it competes with the requests
 * Parley answers; here it runs on another core. Requests posted in the same turn travel to the
 * worker in one message, and results that complete together come back in one.
 *
 * The worker runs the same UndiciOutboundSender as the in-process mode, so timeouts, the response
 * cap and the address guard at connect time are the same. Save-time URL checks stay on the main
 * thread. If the worker dies, every request it held ends as a `connection` failure (the delivery
 * engines retry such failures as they would a refused connection) and the next request starts a
 * new worker.
 */
import type { Worker } from 'node:worker_threads';
import { Batcher } from '../../kernel/batcher.js';
import { startSiblingWorker } from '../../kernel/worker-file.js';
import type { OutboundRequest, OutboundResult, OutboundSender } from './ports.js';
import { assertAllowedUrl, noResponse, type UndiciSenderOptions } from './sender.js';
import type { WorkerAnswer, WorkerCall } from './worker.js';

interface Call {
  id: number;
  request: OutboundRequest;
  resolve: (result: OutboundResult) => void;
}

/** Most a shutdown waits for the worker's in-flight requests before it is stopped. */
const CLOSE_GRACE_MS = 10_000;

const failure = (message: string): OutboundResult => noResponse({ kind: 'connection', message });

export class ThreadedOutboundSender implements OutboundSender {
  private worker: Worker | undefined;
  private nextId = 1;
  /** Requests posted in one turn, handed to the worker together on the next. */
  private readonly outbox = new Batcher<Call>({ run: (calls) => this.handOver(calls) });
  /** Requests handed to the current worker, by id. */
  private readonly inFlight = new Map<number, Call>();
  private closed = false;
  /** Settles when the current worker has loaded (or has stopped). */
  private ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: UndiciSenderOptions,
    /** Told when the worker fails (it is replaced on the next request). */
    private readonly onWorkerError: (error: unknown) => void = () => undefined,
  ) {}

  assertAllowedUrl(url: string): Promise<void> {
    return assertAllowedUrl(url, this.options.allowPrivate);
  }

  post(request: OutboundRequest): Promise<OutboundResult> {
    if (this.closed) return Promise.resolve(failure('the outbound sender is closed'));
    return new Promise((resolve) => this.outbox.push({ id: this.nextId++, request, resolve }));
  }

  /**
   * Starts the worker before the first request needs it (loading it takes about half a second);
   * resolves once it has loaded.
   */
  async warmUp(): Promise<void> {
    if (this.closed) return;
    this.ensureWorker();
    await this.ready;
  }

  /** Stops the worker at once, as a crash would (its requests end as failures). Tests use it. */
  async stopWorker(): Promise<void> {
    await this.worker?.terminate();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outbox.flush();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    const grace = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(grace);
  }

  private handOver(calls: Call[]): void {
    const worker = this.ensureWorker();
    const message: WorkerCall = calls.map((call) => [call.id, call.request]);
    for (const call of calls) this.inFlight.set(call.id, call);
    worker.ref();
    worker.postMessage(message);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startSiblingWorker(import.meta.url, 'worker', { workerData: this.options });
    worker.unref();
    let loaded = () => {};
    this.ready = new Promise<void>((resolve) => (loaded = resolve));
    worker.on('message', (answers: WorkerAnswer) => {
      if (answers === 'ready') return loaded();
      for (const [id, result] of answers) {
        const call = this.inFlight.get(id);
        if (!call) continue;
        this.inFlight.delete(id);
        call.resolve(result);
      }
      // Idle, the worker does not keep the process alive.
      if (this.inFlight.size === 0) worker.unref();
    });
    // An 'error' is followed by 'exit', which settles what the worker held.
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('exit', () => {
      loaded();
      if (this.worker === worker) this.worker = undefined;
      for (const call of this.inFlight.values()) call.resolve(failure('the outbound worker stopped before answering'));
      this.inFlight.clear();
    });
    this.worker = worker;
    return worker;
  }
}
