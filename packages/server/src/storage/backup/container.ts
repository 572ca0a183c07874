/**
 * The backup file: one file, written front to back, read only after its checksum matched.
 *
 *   magic    "PARLEY-BACKUP\n" (14 bytes), then the format version (u16, big-endian)
 *   entries  [kind u8][name length u16][name, UTF-8][data length u32][data], in order; the first
 *            is the header (JSON: engine, schema version, time); an entry whose name repeats the
 *            previous one's continues it (large files are written in chunks)
 *   end      an entry of kind END with an empty name and no data, then the SHA-256 of every byte
 *            before the digest (32 bytes)
 *
 * A file that does not start with the magic is not a Parley backup; one whose digest does not
 * match (cut short, changed) is damaged. Nothing is read out of it before both were checked.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import type { Engine } from '../types.js';

export const MAGIC = Buffer.from('PARLEY-BACKUP\n', 'latin1');
export const FORMAT_VERSION = 1;
const DIGEST_BYTES = 32;
/** Largest data of one entry; larger contents are written as several entries of the same name. */
export const CHUNK_BYTES = 8 * 1024 * 1024;

export enum EntryKind {
  End = 0,
  Header = 1,
  /** The SQLite database file (online backup), in chunks. */
  SqliteFile = 2,
  /** The sealed-secret key, 32 bytes. */
  SecretKey = 3,
  /** A media file, by its name under DATA_DIR/media, in chunks. */
  Media = 4,
  /** A batch of one table's rows (PostgreSQL): JSON array of objects. */
  Rows = 5,
}

export interface BackupHeader {
  readonly engine: Engine;
  readonly schemaVersion: number;
  readonly createdAt: string;
}

export interface Entry {
  readonly kind: EntryKind;
  readonly name: string;
  readonly data: Buffer;
}

/** A backup file that cannot be used: not one of ours, damaged, or of an unknown format. */
export class BadBackupFile extends Error {
  override name = 'BadBackupFile';
}

/** Writes a backup to `<file>.partial` and renames it to `file` once complete. */
export class BackupWriter {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  private readonly partial: string;
  private closed = false;

  constructor(private readonly file: string) {
    this.partial = `${file}.partial`;
    this.fd = fs.openSync(this.partial, 'w', 0o600);
    const version = Buffer.alloc(2);
    version.writeUInt16BE(FORMAT_VERSION);
    this.write(Buffer.concat([MAGIC, version]));
  }

  header(header: BackupHeader): void {
    this.entry(EntryKind.Header, '', Buffer.from(JSON.stringify(header)));
  }

  entry(kind: EntryKind, name: string, data: Buffer): void {
    for (let at = 0; at === 0 || at < data.length; at += CHUNK_BYTES) {
      const chunk = data.subarray(at, at + CHUNK_BYTES);
      const nameBytes = Buffer.from(name, 'utf8');
      const head = Buffer.alloc(1 + 2 + nameBytes.length + 4);
      head.writeUInt8(kind, 0);
      head.writeUInt16BE(nameBytes.length, 1);
      nameBytes.copy(head, 3);
      head.writeUInt32BE(chunk.length, 3 + nameBytes.length);
      this.write(head);
      this.write(chunk);
    }
  }

  /** Appends a file's contents as entries of `kind` named `name`, chunk by chunk. */
  fileEntry(kind: EntryKind, name: string, source: string): void {
    const fd = fs.openSync(source, 'r');
    try {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      let wrote = false;
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, CHUNK_BYTES, null);
        if (n === 0 && wrote) break;
        this.entry(kind, name, buffer.subarray(0, n));
        wrote = true;
        if (n === 0) break;
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Writes the end and the digest, flushes, and moves the file to its name. */
  finish(): void {
    this.entry(EntryKind.End, '', Buffer.alloc(0));
    fs.writeSync(this.fd, this.hash.digest());
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.closed = true;
    fs.renameSync(this.partial, this.file);
  }

  /** Removes the unfinished file (after a failure). */
  abandon(): void {
    if (!this.closed) fs.closeSync(this.fd);
    this.closed = true;
    fs.rmSync(this.partial, { force: true });
  }

  private write(bytes: Buffer): void {
    this.hash.update(bytes);
    let at = 0;
    while (at < bytes.length) at += fs.writeSync(this.fd, bytes, at, bytes.length - at);
  }
}

function readExactly(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  let at = 0;
  while (at < length) {
    const n = fs.readSync(fd, buffer, at, length - at, position + at);
    if (n === 0) throw new BadBackupFile('the backup file is damaged or cut short');
    at += n;
  }
  return buffer;
}

/**
 * Checks a backup file through and returns its header: the magic, the format, the digest over
 * every byte, and that its entries end exactly at the end marker.
 */
export function verifyBackup(file: string): BackupHeader {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    throw new BadBackupFile(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size < MAGIC.length + 2 || !readExactly(fd, MAGIC.length, 0).equals(MAGIC)) throw new BadBackupFile(`${file} is not a Parley backup`);
    const format = readExactly(fd, 2, MAGIC.length).readUInt16BE(0);
    if (format !== FORMAT_VERSION) throw new BadBackupFile(`${file} has backup format ${format}; this Parley reads format ${FORMAT_VERSION}`);
    if (size < MAGIC.length + 2 + DIGEST_BYTES) throw new BadBackupFile('the backup file is damaged or cut short');
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const body = size - DIGEST_BYTES;
    for (let at = 0; at < body; ) {
      const n = fs.readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, body - at), at);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      at += n;
    }
    if (!hash.digest().equals(readExactly(fd, DIGEST_BYTES, body))) throw new BadBackupFile('the backup file is damaged or cut short (its checksum does not match)');
    let header: BackupHeader | undefined;
    let ended = false;
    for (const entry of walk(fd, body)) {
      if (entry.kind === EntryKind.Header) header = JSON.parse(entry.data.toString('utf8')) as BackupHeader;
      if (entry.kind === EntryKind.End) ended = true;
    }
    if (!header || !ended) throw new BadBackupFile('the backup file is incomplete (no header or no end)');
    return header;
  } finally {
    fs.closeSync(fd);
  }
}

function* walk(fd: number, body: number): Generator<Entry> {
  let at = MAGIC.length + 2;
  while (at < body) {
    const fixed = readExactly(fd, 3, at);
    const kind = fixed.readUInt8(0) as EntryKind;
    const nameLength = fixed.readUInt16BE(1);
    const name = readExactly(fd, nameLength, at + 3).toString('utf8');
    const length = readExactly(fd, 4, at + 3 + nameLength).readUInt32BE(0);
    const start = at + 3 + nameLength + 4;
    if (start + length > body) throw new BadBackupFile('the backup file is damaged (an entry runs past its end)');
    yield { kind, name, data: readExactly(fd, length, start) };
    at = start + length;
    if (kind === EntryKind.End) {
      if (at !== body) throw new BadBackupFile('the backup file is damaged (data after its end)');
      return;
    }
  }
}

/** The entries of a file `verifyBackup` accepted, in order (the end marker left out). */
export function* readEntries(file: string): Generator<Entry> {
  const fd = fs.openSync(file, 'r');
  try {
    const body = fs.fstatSync(fd).size - DIGEST_BYTES;
    for (const entry of walk(fd, body)) if (entry.kind !== EntryKind.End) yield entry;
  } finally {
    fs.closeSync(fd);
  }
}
