/**
 * The background WAL checkpointer: idle while the WAL is small, and once it has grown, a worker
 * thread copies the WAL into the database file without the writing connection checkpointing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BackgroundCheckpointer } from '../../src/storage/sqlite/checkpointer.js';

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
});
