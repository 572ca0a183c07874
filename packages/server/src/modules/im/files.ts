/**
 * IM chat files (contract 6.8, Easemob's `/chatfiles`): what the SDK uploads before it sends an
 * `img`, `audio`, `video` or `file` message, kept in the one media store (modules/media/store.ts)
 * under the app's quota and the store's retention. Each file gets its own random share secret,
 * handed to the uploader once and kept as its SHA-256: a download needs that file's secret or a
 * token of the app, so the secret of one file never opens another.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Clock } from '../../kernel/clock.js';
import type { MediaRepository, StoredFile } from '../media/ports.js';
import { isFileId, MediaStore, type MediaLimits } from '../media/store.js';

/** The app a file belongs to, and the hash of its share secret (written with its row). */
export interface ImFileOwner {
  appId: string;
  secretHash: string;
}

export interface ImFileRecord extends StoredFile {
  appId: string;
  secretHash: string;
}

export interface ImFilesRepository extends MediaRepository<ImFileOwner> {
  get(appId: string, id: string): Promise<ImFileRecord | undefined>;
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
   * The app's file `uuid` when the caller may read it: `authorized` (a token of the app) or the
   * file's own share secret. Anything else reads as not found, so ids cannot be probed.
   */
  async open(appId: string, uuid: string, access: { authorized: boolean; shareSecret?: string }): Promise<{ record: ImFileRecord; stream: fs.ReadStream } | undefined> {
    if (!isFileId(uuid)) return undefined;
    const record = await this.repo.get(appId, uuid);
    if (!record) return undefined;
    if (!access.authorized && !(access.shareSecret !== undefined && secretMatches(access.shareSecret, record.secretHash))) return undefined;
    const stream = this.store.read(uuid);
    return stream ? { record, stream } : undefined;
  }

  sweepExpired(): Promise<number> {
    return this.store.sweepExpired();
  }
}
