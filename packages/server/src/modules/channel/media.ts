/**
 * Files agents attach to replies (contract 3.3). Stored under DATA_DIR/media by an unguessable
 * id; the URL is public so that the customer's server can fetch it without credentials.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { MediaView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { MediaRecord, MediaRepository } from './ports.js';

export const mediaPath = (id: string) => `/api/media/${id}`;

export class MediaStore {
  constructor(
    private readonly repo: MediaRepository,
    private readonly dir: string,
    private readonly publicUrl: string,
    private readonly clock: Clock,
  ) {}

  /** Streams the upload to disk, then records it; a failed upload leaves no file behind. */
  async save(tenantId: number, filename: string, contentType: string, stream: Readable, isTruncated: () => boolean): Promise<MediaView | 'too_large'> {
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
      const safeName = path.basename(filename).slice(0, 255) || 'file';
      const record: MediaRecord = { id, tenantId, filename: safeName, contentType, size, createdAt: this.clock.now() };
      await this.repo.insert(record);
      return { url: `${this.publicUrl}${mediaPath(id)}`, filename: safeName, file_length: size, content_type: contentType };
    } catch (error) {
      fs.rmSync(file, { force: true });
      throw error;
    }
  }

  async open(id: string): Promise<{ record: MediaRecord; stream: fs.ReadStream } | undefined> {
    if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
    const record = await this.repo.get(id);
    if (!record) return undefined;
    const file = path.join(this.dir, id);
    if (!fs.existsSync(file)) return undefined;
    return { record, stream: fs.createReadStream(file) };
  }
}
