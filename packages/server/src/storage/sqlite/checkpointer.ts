/**
 * WAL checkpoints off the request thread.
 *
 * better-sqlite3 is synchronous: with SQLite's default auto-checkpoint (every 1,000 pages) the
 * commit that crosses the threshold copies the WAL into the database file and fsyncs it on the
 * event loop, and every request waits. Here the service's own connection checkpoints only as a
 * safety net (every SAFETY_NET_PAGES), and a worker thread with a connection of its own runs
 * PASSIVE checkpoints (which never block writers) as soon as the WAL holds a few pages. The worker
 * starts only once the WAL file has grown, so short-lived instances (tests, tools) never pay for it.
 * Durability is SQLite's own: a commit is durable once in the WAL (synchronous = NORMAL).
 *
 * Under sustained writes the WAL only starts over from the service's own connection. SQLite
 * restarts the WAL when a write begins with every frame already copied, and on a busy event loop
 * the next commit has almost always added frames by the time a worker's checkpoint ends: the WAL
 * grows until the safety net, where the service's connection checkpoints the last frames itself
 * (fsyncing the WAL and the database) and its next commit writes and fsyncs the new WAL header.
 * Those fsyncs stop the event loop, sometimes for 10-25 ms on a virtual disk, and every request in
 * flight waits. So the safety net is set high (32,768 pages, a WAL file of about 135 MB): at the
 * benchmark's load (about 7,000 frames a second) the pause comes about every 5 s instead of every
 * 1.2 s.
 * At rest the WAL starts over at the first write after a checkpoint.
 */
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../../kernel/worker-file.js';
import type { CheckpointWorkerData } from './checkpoint-worker.js';

/** Pages after which the service's own connection checkpoints (and so the WAL starts over), see above. */
export const SAFETY_NET_PAGES = 32768;
/**
 * The WAL file is cut back to this size when it starts over. It is above the safety net's WAL
 * (32768 frames of 4 KiB pages and 24-byte headers, about 135 MB, plus the frames of the commit
 * that crosses it), so a restart under load never truncates a file the next commits grow again.
 */
export const WAL_SIZE_LIMIT_BYTES = 160 * 1024 * 1024;
/** WAL size (bytes) past which the background checkpointer is started. */
const START_AT_BYTES = 1000 * 4096;
const WATCH_INTERVAL_MS = 1000;
const CHECKPOINT_INTERVAL_MS = 50;

export class BackgroundCheckpointer {
  private worker: Worker | undefined;
  private readonly watch: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly file: string) {
    this.watch = setInterval(() => this.check(), WATCH_INTERVAL_MS);
    this.watch.unref();
  }

  /** True once the worker runs (tests and metrics). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Starts the worker if the WAL has grown past the threshold. */
  check(): void {
    if (this.stopped || this.worker) return;
    let size = 0;
    try {
      size = fs.statSync(`${this.file}-wal`).size;
    } catch {
      return;
    }
    if (size >= START_AT_BYTES) this.start();
  }

  private start(): void {
    const workerData: CheckpointWorkerData = { file: this.file, intervalMs: CHECKPOINT_INTERVAL_MS };
    const worker = startSiblingWorker(import.meta.url, 'checkpoint-worker', { workerData });
    worker.unref();
    // A failed worker only means checkpoints fall back to the service's own connection.
    worker.on('error', () => undefined);
    this.worker = worker;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.watch);
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
    await worker.terminate();
  }
}
