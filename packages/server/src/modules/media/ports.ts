/** The storage port of the media store: one table per owner kind, the same rules for all. */

/** A stored file as the store knows it; the owner's table may keep more. */
export interface StoredFile {
  /** 32 lower-case hex digits; also the file's name on disk. */
  id: string;
  filename: string;
  /** Sniffed from the file's first bytes (media-type.ts). */
  contentType: string;
  size: number;
  createdAt: number;
}

/**
 * The records of one owner kind (a tenant's media, an IM app's chat files). `Owner` is what the
 * quota counts by, with whatever the owner's row needs besides (an IM file's share secret).
 */
export interface MediaRepository<Owner> {
  /**
   * Records the file unless the owner's recorded files and this one would exceed `quotaBytes`
   * (false then, nothing written). Concurrent uploads of one owner are serialized.
   */
  insertWithinQuota(owner: Owner, file: StoredFile, quotaBytes: number): Promise<boolean>;
  /** Bytes of the owner's recorded files. */
  usedBytes(owner: Owner): Promise<number>;
  /** Ids of files recorded before `before` (epoch ms), oldest first. */
  listCreatedBefore(before: number, limit: number): Promise<string[]>;
  deleteIds(ids: readonly string[]): Promise<void>;
}
