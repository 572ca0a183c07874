/**
 * The one media store: uploaded files under DATA_DIR/media by an unguessable id, whoever owns
 * them (agents' reply media, IM chat files). The recorded type is sniffed from the file's first
 * bytes (media-type.ts); each owner has a storage quota, and files older than the retention
 * period are swept away. Several instances share the directory (a shared volume) and the rows;
 * the quota check is serialized per owner by the repository.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { SNIFF_BYTES, sniffMediaType } from './media-type.js';
import type { MediaRepository, StoredFile } from './ports.js';

/**
 * The name a file is kept under: its last path segment, without control characters (U+0000 would
 * fail a PostgreSQL insert) or unpaired surrogates, at most 255 characters.
 */
export function storedFileName(given: string): string {
  const clean = path
    .basename(given)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '_');
  return clean.slice(0, 255) || 'file';
}

/** The store's directory under DATA_DIR (a volume every instance shares). */
export const mediaDir = (dataDir: string): string => path.join(dataDir, 'media');

export interface MediaLimits {
  /** Bytes one owner's stored files may take in all. */
  quotaBytes: number;
  /** Files older than this are deleted; 0 keeps them forever. */
  retentionMs: number;
}

/** How a saved file is recorded within its owner's quota: false when it would exceed it. */
export type Recorder<Owner> = (owner: Owner, file: StoredFile, quotaBytes: number) => Promise<boolean>;

/** Rows deleted per statement by the retention sweep. */
const SWEEP_BATCH = 500;

/** Ids the store makes: anything else never reaches the file system. */
export const isFileId = (id: string): boolean => /^[0-9a-f]{32}$/.test(id);

function readHead(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    return head.subarray(0, fs.readSync(fd, head, 0, SNIFF_BYTES, 0));
  } finally {
    fs.closeSync(fd);
  }
}

export class MediaStore<Owner> {
  constructor(
    private readonly repo: MediaRepository<Owner>,
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly limits: MediaLimits,
  ) {}

  /**
   * Streams the upload to disk, then records it within the owner's quota: by the repository, or by
   * `record` when the row is written with more (a group's shared file with its group operation,
   * modules/im/shared-files.ts); `record` answers false when over the quota. A refused or failed
   * upload leaves neither a file nor a row behind.
   */
  async save(owner: Owner, filename: string, stream: Readable, isTruncated: () => boolean, record: Recorder<Owner> = (o, f, q) => this.repo.insertWithinQuota(o, f, q)): Promise<StoredFile | 'too_large'> {
    const quota = this.limits.quotaBytes;
    // An owner already at its quota is refused before a byte is written.
    const used = await this.repo.usedBytes(owner);
    if (used >= quota) throw new AppError('media_quota_exceeded', { quota, used });
    fs.mkdirSync(this.dir, { recursive: true });
    const id = randomUUID().replace(/-/g, '');
    const file = path.join(this.dir, id);
    try {
      await pipeline(stream, fs.createWriteStream(file, { flags: 'wx' }));
      if (isTruncated()) {
        fs.rmSync(file, { force: true });
        return 'too_large';
      }
      const size = fs.statSync(file).size;
      const stored: StoredFile = { id, filename: storedFileName(filename), contentType: sniffMediaType(readHead(file)), size, createdAt: this.clock.now() };
      if (!(await record(owner, stored, quota))) {
        throw new AppError('media_quota_exceeded', { quota, used: await this.repo.usedBytes(owner) });
      }
      return stored;
    } catch (error) {
      fs.rmSync(file, { force: true });
      throw error;
    }
  }

  /** The bytes of a recorded file (the caller found its row), or undefined when they are gone. */
  read(id: string): fs.ReadStream | undefined {
    if (!isFileId(id)) return undefined;
    const file = path.join(this.dir, id);
    return fs.existsSync(file) ? fs.createReadStream(file) : undefined;
  }

  /** Deletes the bytes of a file whose row the caller deleted. */
  discard(id: string): void {
    if (isFileId(id)) fs.rmSync(path.join(this.dir, id), { force: true });
  }

  /** Deletes files recorded longer ago than the retention period (see `sweep`). */
  sweepExpired(): Promise<number> {
    if (this.limits.retentionMs === 0) return Promise.resolve(0);
    const before = this.clock.now() - this.limits.retentionMs;
    return this.sweep((limit) => this.repo.listCreatedBefore(before, limit));
  }

  /**
   * Deletes the files `list` names, a batch at a time, file first and then its row: a run
   * stopped in between leaves rows whose files are gone, which the next run deletes.
   */
  async sweep(list: (limit: number) => Promise<string[]>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ids = await list(SWEEP_BATCH);
      for (const id of ids) this.discard(id);
      await this.repo.deleteIds(ids);
      deleted += ids.length;
      if (ids.length < SWEEP_BATCH) return deleted;
    }
  }
}
