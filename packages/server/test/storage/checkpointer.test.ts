/**
 * The background WAL checkpointer: idle while the WAL is small, and once it has grown, a worker
 * thread copies the WAL into the database file without the writing connection checkpointing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BackgroundCheckpointer, SAFETY_NET_PAGES, WAL_SIZE_LIMIT_BYTES } from '../../src/storage/sqlite/checkpointer.js';
import { directRunnerOf } from '../../src/storage/direct-statements.js';
import { openSqlite } from '../../src/storage/sqlite/open.js';

describe('background WAL checkpointer', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function open() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ckpt-'));
    const file = path.join(dir, 'p.db');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // The writer never checkpoints here: whatever reaches the database file, the worker copied.
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const checkpointer = new BackgroundCheckpointer(file);
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => {
      db.close();
    });
    cleanups.push(() => checkpointer.stop());
    const write = (rows: number) => {
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000));
      })();
    };
    return { file, db, checkpointer, write };
  }

  it('does not start while the WAL is small', () => {
    const { checkpointer, write } = open();
    write(100);
    checkpointer.check();
    expect(checkpointer.running).toBe(false);
  });

  it('starts once the WAL has grown and copies it into the database file from its own thread', async () => {
    const { file, checkpointer, write } = open();
    const before = fs.statSync(file).size;
    write(6000); // about 6 MB of WAL
    expect(fs.statSync(file).size).toBe(before);
    checkpointer.check();
    expect(checkpointer.running).toBe(true);
    await expect.poll(() => fs.statSync(file).size, { timeout: 10_000 }).toBeGreaterThan(5_000_000);
  });

  /**
   * The service's own connection (openSqlite) checkpoints only at the safety net: under load
   * that is where the WAL starts over, with fsyncs on the event loop, so it must be rare. Its
   * statements run synchronously through `direct`, so the worker (started by a timer) cannot
   * copy anything in between: whatever reaches the database file, this connection copied.
   */
  it('leaves the WAL to the worker on the service connection up to the safety net, and checkpoints past it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-ckpt-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'parley.db');
    const storage = openSqlite(file);
    cleanups.push(() => storage.close());
    const direct = directRunnerOf(storage.db)!;
    direct('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)', []);
    // One row of 4,000 bytes fills about one page: `rows` pages in one transaction.
    const write = (rows: number) =>
      direct('WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) INSERT INTO t (v) SELECT randomblob(4000) FROM c', [rows]);
    const walFrames = () => Math.floor(fs.statSync(`${file}-wal`).size / (4096 + 24));
    const databaseBytes = () => fs.statSync(file).size;
    // The WAL header's checkpoint sequence number (bytes 12-15) counts the times the WAL started over.
    const walRestarts = () => fs.readFileSync(`${file}-wal`).readUInt32BE(12);
    const empty = databaseBytes();

    // 10,000 pages: past SQLite's default (1,000) and the previous safety net (8,192).
    write(10_000);
    expect(walFrames()).toBeGreaterThan(10_000);
    expect(databaseBytes()).toBe(empty);

    // Past the safety net the connection checkpoints the WAL into the database file itself.
    write(SAFETY_NET_PAGES - 10_000 + 1_000);
    expect(databaseBytes()).toBeGreaterThan(SAFETY_NET_PAGES * 4096);
    // The WAL then starts over at the next write, and is not cut back below the size it reached.
    const restarts = walRestarts();
    write(10);
    expect(walRestarts()).toBe(restarts + 1);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(SAFETY_NET_PAGES * 4096);
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(WAL_SIZE_LIMIT_BYTES);
  });
});
