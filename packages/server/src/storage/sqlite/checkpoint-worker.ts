/**
 * The checkpointer's worker thread (see checkpointer.ts): a connection of its own that runs a
 * PASSIVE checkpoint every `intervalMs` until the main thread posts a message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface CheckpointWorkerData {
  /** The database file. */
  file: string;
  intervalMs: number;
}

const port = parentPort;
if (!port) throw new Error('checkpoint worker: run me with new Worker()');
const { file, intervalMs } = workerData as CheckpointWorkerData;

const db = new BetterSqlite3(file);
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY and the like: the next tick tries again.
  }
}, intervalMs);
port.on('message', () => {
  clearInterval(timer);
  db.close();
  port.close();
});
