/**
 * A group's or chat room's shared files (Easemob's `share_files`): chat files of the one media store
 * (files.ts) that belong to a group, listed newest first, read by its members. Any member (or the
 * app) uploads; the uploader, the owner, an admin or the app deletes. Sharing and deleting are group
 * operations (`shareFile`): the row is written in the operation's transaction with its callback
 * jobs, then the other members are told (`uploadFile`, `deleteFile`). A deleted group's files go
 * with the next sweep (files.ts `sweepExpired`).
 */
import type fs from 'node:fs';
import type { Readable } from 'node:stream';
import { AppError } from '../../kernel/errors.js';
import type { ImFileRecord, ImFiles, ImFilesRepository } from './files.js';
import type { Operator } from './group-events.js';
import type { ImGroupsService } from './groups.js';
import type { GroupKind, ImApp, ImGroup } from './ports.js';

/** Files a page may hold, as Easemob (`pagesize` 1 – 1000). */
export const MAX_SHARED_PAGE = 1000;

export interface SharedFile {
  fileId: string;
  fileName: string;
  /** Who uploaded it; null: the app. */
  owner: string | null;
  size: number;
  createdAt: number;
}

const sharedFileOf = (record: ImFileRecord): SharedFile => ({
  fileId: record.id,
  fileName: record.filename,
  owner: record.shared?.owner ?? null,
  size: record.size,
  createdAt: record.createdAt,
});

export class ImSharedFiles {
  constructor(
    private readonly files: ImFiles,
    private readonly repo: Pick<ImFilesRepository, 'get' | 'listShared'>,
    private readonly groups: ImGroupsService,
  ) {}

  /** Shares an upload in the group: 'too_large' past the file size limit, 413 past the app's quota. */
  async upload(app: ImApp, kind: GroupKind, id: string, operator: Operator, filename: string, stream: Readable, isTruncated: () => boolean): Promise<SharedFile | 'too_large'> {
    const group = await this.groups.require(app, kind, id);
    const saved = await this.files.saveShared(app.id, { groupId: group.id, owner: operator }, filename, stream, isTruncated, (owner, file, quotaBytes) =>
      this.groups.perform(app, group, operator, { op: 'shareFile', fileId: file.id, fileName: file.filename, added: true }, (tx) => tx.files.insertWithinQuota(owner, file, quotaBytes), { done: Boolean }),
    );
    if (saved === 'too_large') return saved;
    return { fileId: saved.id, fileName: saved.filename, owner: operator, size: saved.size, createdAt: saved.createdAt };
  }

  /** Page `pagenum` (from 1) of `pagesize` of the group's files, newest first. */
  async list(app: ImApp, kind: GroupKind, id: string, pagesize: number, pagenum: number): Promise<SharedFile[]> {
    const group = await this.groups.require(app, kind, id);
    const size = Math.min(Math.max(1, pagesize), MAX_SHARED_PAGE);
    return (await this.repo.listShared(group.id, size, (Math.max(1, pagenum) - 1) * size)).map(sharedFileOf);
  }

  /** A file of the group with its bytes; 404 when the group has no such file. */
  async open(app: ImApp, kind: GroupKind, id: string, fileId: string): Promise<{ record: ImFileRecord; stream: fs.ReadStream }> {
    const group = await this.groups.require(app, kind, id);
    const record = await this.fileOf(app, group, fileId);
    const stream = this.files.readShared(record);
    if (!stream) throw notFound(fileId);
    return { record, stream };
  }

  /** Deletes a file of the group: its uploader, the owner, an admin or the app (403 `forbidden_op` otherwise). */
  async remove(app: ImApp, kind: GroupKind, id: string, fileId: string, operator: Operator): Promise<void> {
    const group = await this.groups.require(app, kind, id);
    const record = await this.fileOf(app, group, fileId);
    if (operator !== null && operator !== record.shared?.owner) await this.groups.assertManager(group, operator);
    const deleted = await this.groups.perform(app, group, operator, { op: 'shareFile', fileId, fileName: record.filename, added: false }, (tx) => tx.files.deleteShared(group.id, fileId), { done: Boolean });
    if (!deleted) throw notFound(fileId);
    this.files.discard(fileId);
  }

  private async fileOf(app: ImApp, group: ImGroup, fileId: string): Promise<ImFileRecord> {
    const record = await this.repo.get(app.id, fileId);
    if (!record || record.shared?.groupId !== group.id) throw notFound(fileId);
    return record;
  }
}

const notFound = (fileId: string) => new AppError('service_resource_not_found', { resource: `Shared file ${fileId}` });
