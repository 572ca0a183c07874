/**
 * Files agents attach to replies (contract 3.3), kept in the one media store
 * (modules/media/store.ts) under the tenant's quota. The URL is public so that the customer's
 * server can fetch it without credentials.
 */
import type fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { MediaView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { isFileId, MediaStore, type MediaLimits } from '../media/store.js';
import type { MediaRecord, MediaRepository } from './ports.js';

export { storedFileName, type MediaLimits } from '../media/store.js';

/** Where uploads are served: a path of their own, outside /api and /console. */
export const mediaPath = (id: string) => `/media/${id}`;

export class ChannelMedia {
  private readonly store: MediaStore<number>;

  constructor(
    private readonly repo: MediaRepository,
    dir: string,
    private readonly publicUrl: string,
    clock: Clock,
    limits: MediaLimits,
  ) {
    this.store = new MediaStore(repo, dir, clock, limits);
  }

  /** Streams the upload into the store within the tenant's quota; nothing is left of a refused one. */
  async save(tenantId: number, filename: string, stream: Readable, isTruncated: () => boolean): Promise<MediaView | 'too_large'> {
    const saved = await this.store.save(tenantId, filename, stream, isTruncated);
    if (saved === 'too_large') return saved;
    return { url: `${this.publicUrl}${mediaPath(saved.id)}`, filename: saved.filename, file_length: saved.size, content_type: saved.contentType };
  }

  async open(id: string): Promise<{ record: MediaRecord; stream: fs.ReadStream } | undefined> {
    if (!isFileId(id)) return undefined;
    const record = await this.repo.get(id);
    const stream = record && this.store.read(id);
    return record && stream ? { record, stream } : undefined;
  }

  sweepExpired(): Promise<number> {
    return this.store.sweepExpired();
  }
}
