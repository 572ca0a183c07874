/**
 * The backup file format and the pure parts of moving tables: entries come back as written (large
 * ones in chunks), any changed or missing byte is refused, foreign files are named as such; tables
 * are ordered after the tables they reference, and read by key in batches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupWriter, BadBackupFile, CHUNK_BYTES, EntryKind, readEntries, verifyBackup } from '../../src/storage/backup/container.js';
import { keysetQuery, orderByReferences, rowsJson } from '../../src/storage/backup/tables.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-container-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function written(name: string, entries: Array<[EntryKind, string, Buffer]>): string {
  const file = path.join(dir, name);
  const writer = new BackupWriter(file);
  writer.header({ engine: 'sqlite', schemaVersion: 77, createdAt: '2026-01-01T00:00:00.000Z' });
  for (const [kind, entryName, data] of entries) writer.entry(kind, entryName, data);
  writer.finish();
  return file;
}

describe('backup container', () => {
  it('gives back the header and the entries, a large one in chunks of the same name', () => {
    const big = Buffer.alloc(CHUNK_BYTES + 10, 7);
    const file = written('ok', [
      [EntryKind.SecretKey, 'secret.key', Buffer.alloc(32, 1)],
      [EntryKind.Media, 'a1', big],
      [EntryKind.Media, 'empty', Buffer.alloc(0)],
    ]);
    expect(verifyBackup(file)).toEqual({ engine: 'sqlite', schemaVersion: 77, createdAt: '2026-01-01T00:00:00.000Z' });
    const entries = [...readEntries(file)].filter((e) => e.kind !== EntryKind.Header);
    expect(entries.map((e) => [e.kind, e.name, e.data.length])).toEqual([
      [EntryKind.SecretKey, 'secret.key', 32],
      [EntryKind.Media, 'a1', CHUNK_BYTES],
      [EntryKind.Media, 'a1', 10],
      [EntryKind.Media, 'empty', 0],
    ]);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('refuses a changed byte, a cut, a foreign file and another format, each with its reason', () => {
    const file = written('base', [[EntryKind.Rows, 'tenants', Buffer.from('[{"id":1}]')]]);
    const bytes = fs.readFileSync(file);
    const variant = (name: string, data: Buffer) => {
      fs.writeFileSync(path.join(dir, name), data);
      return path.join(dir, name);
    };
    for (let at = 0; at < bytes.length; at += 7) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] as number) ^ 1;
      expect(() => verifyBackup(variant('changed', changed))).toThrow(BadBackupFile);
    }
    for (const cut of [1, 16, 33, bytes.length - 20]) expect(() => verifyBackup(variant('cut', bytes.subarray(0, bytes.length - cut)))).toThrow(/damaged or cut short|not a Parley backup/);
    expect(() => verifyBackup(variant('foreign', Buffer.from('PK\x03\x04 a zip file, not ours')))).toThrow(/is not a Parley backup/);
    const other = Buffer.from(bytes);
    other.writeUInt16BE(9, 14);
    expect(() => verifyBackup(variant('format', other))).toThrow(/backup format 9/);
  });

  it('leaves no file under the name when a backup is abandoned', () => {
    const file = path.join(dir, 'abandoned');
    const writer = new BackupWriter(file);
    writer.header({ engine: 'postgres', schemaVersion: 1, createdAt: '' });
    writer.abandon();
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });
});

describe('moving tables', () => {
  it('orders tables after the ones they reference, self references aside, and names a cycle', () => {
    expect(orderByReferences(['c', 'b', 'a', 'd'], [['c', 'b'], ['b', 'a'], ['d', 'd'], ['a', 'zzz']])).toEqual(['a', 'b', 'c', 'd']);
    expect(() => orderByReferences(['x', 'y'], [['x', 'y'], ['y', 'x']])).toThrow(/cycle/);
  });

  it('reads by primary key after the last key, in each engine\'s placeholders', () => {
    const table = { name: 'im_messages', columns: ['app_id', 'msg_id', 'payload'], primaryKey: ['app_id', 'msg_id'] };
    expect(keysetQuery(table, false, () => '?')).toBe('SELECT "app_id", "msg_id", "payload" FROM "im_messages" ORDER BY "app_id", "msg_id" LIMIT ?');
    expect(keysetQuery(table, true, (i) => `$${i}`)).toBe('SELECT "app_id", "msg_id", "payload" FROM "im_messages" WHERE ("app_id", "msg_id") > ($1, $2) ORDER BY "app_id", "msg_id" LIMIT $3');
    expect(() => keysetQuery({ name: 'loose', columns: ['a'], primaryKey: [] }, false, () => '?')).toThrow(/no primary key/);
  });

  it('writes integers beyond a double as strings', () => {
    expect(rowsJson([{ a: 1n, b: 9007199254740993n, c: 'x', d: null }])).toBe('[{"a":1,"b":"9007199254740993","c":"x","d":null}]');
  });
});
