/**
 * IM chat files (contract 6.8, Easemob's `/chatfiles`): what the SDK uploads before it sends an
 * `img`, `audio`, `video` or `file` message, kept in the one media store (modules/media/store.ts)
 * under the app's quota and the store's retention. Each file gets its own random share secret,
 * handed to the uploader once and kept as its SHA-256: a download needs that file's secret or a
 * token of the app, so the secret of one file never opens another. A group's or room's shared
 * files are the same rows with their group (shared-files.ts): read through the group only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Clock } from '../../kernel/clock.js';
import type { MediaRepository, StoredFile } from '../media/ports.js';
import { isFileId, MediaStore, type MediaLimits, type Recorder } from '../media/store.js';

/** A group's (or room's) shared file: the group's id and who uploaded it (null: the app). */
export interface SharedIn {
  groupId: string;
  owner: string | null;
}

/** The app a file belongs to, and the hash of its share secret (written with its row); a shared file's group. */
export interface ImFileOwner {
  appId: string;
  secretHash: string;
  shared?: SharedIn;
}

export interface ImFileRecord extends StoredFile {
  appId: string;
  secretHash: string;
  shared?: SharedIn;
}

export interface ImFilesRepository extends MediaRepository<ImFileOwner> {
  get(appId: string, id: string): Promise<ImFileRecord | undefined>;
  /** A group's shared files, newest first: `limit` of them after the first `offset`. */
  listShared(groupId: string, limit: number, offset: number): Promise<ImFileRecord[]>;
  /** Ids of shared files whose group or room no longer exists. */
  listOrphaned(limit: number): Promise<string[]>;
}

/** The chat-file writes of a transaction of the unit of work (`ImTransaction.files`). */
export interface ImFileWrites {
  insertWithinQuota(owner: ImFileOwner, file: StoredFile, quotaBytes: number): Promise<boolean>;
  /** Deletes a group's shared file's row; false when the group has no such file. */
  deleteShared(groupId: string, id: string): Promise<boolean>;
}

export interface SavedImFile {
  uuid: string;
  shareSecret: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Whether `given` is the secret whose hash is `hash` (constant time over the hashes). */
export function secretMatches(given: string, hash: string): boolean {
  const a = Buffer.from(sha256(given), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export class ImFiles {
  private readonly store: MediaStore<ImFileOwner>;

  constructor(
    private readonly repo: ImFilesRepository,
    dir: string,
    clock: Clock,
    limits: MediaLimits,
  ) {
    this.store = new MediaStore(repo, dir, clock, limits);
  }

  async save(appId: string, filename: string, stream: Readable, isTruncated: () => boolean): Promise<SavedImFile | 'too_large'> {
    const shareSecret = randomBytes(24).toString('base64url');
    const saved = await this.store.save({ appId, secretHash: sha256(shareSecret) }, filename, stream, isTruncated);
    return saved === 'too_large' ? saved : { uuid: saved.id, shareSecret };
  }

  /**
   * Saves a group's shared file, its row written by `record` (with the group operation). It has no
   * share secret anyone knows: it is read through its group (`readShared`), never by `open`.
   */
  saveShared(appId: string, shared: SharedIn, filename: string, stream: Readable, isTruncated: () => boolean, record: Recorder<ImFileOwner>): Promise<StoredFile | 'too_large'> {
    return this.store.save({ appId, secretHash: sha256(randomBytes(24).toString('base64url')), shared }, filename, stream, isTruncated, record);
  }

  /** The bytes of a shared file the caller found in its group, or undefined when they are gone. */
  readShared(record: ImFileRecord): fs.ReadStream | undefined {
    return this.store.read(record.id);
  }

  /** Deletes the bytes of a file whose row was deleted. */
  discard(id: string): void {
    this.store.discard(id);
  }

  /**
   * The app's file `uuid` when the caller may read it: `authorized` (a token of the app) or the
   * file's own share secret. Anything else reads as not found, so ids cannot be probed.
   */
  async open(appId: string, uuid: string, access: { authorized: boolean; shareSecret?: string }): Promise<{ record: ImFileRecord; stream: fs.ReadStream } | undefined> {
    if (!isFileId(uuid)) return undefined;
    const record = await this.repo.get(appId, uuid);
    if (!record || record.shared) return undefined;
    if (!access.authorized && !(access.shareSecret !== undefined && secretMatches(access.shareSecret, record.secretHash))) return undefined;
    const stream = this.store.read(uuid);
    return stream ? { record, stream } : undefined;
  }

  /** Files older than the retention period, and the shared files of groups and rooms that were deleted. */
  async sweepExpired(): Promise<number> {
    return (await this.store.sweepExpired()) + (await this.store.sweep((limit) => this.repo.listOrphaned(limit)));
  }
}
