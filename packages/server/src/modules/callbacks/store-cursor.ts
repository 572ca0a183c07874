/**
 * The cursor of the exception store's per-key listing: base64url of `{dateKey}.{id}`, the key it
 * belongs to and the id of the last record returned. Records are listed in id order, so the next
 * page is "ids above this one" (keyset): records stored or deleted between two pages neither
 * shift nor repeat the ones already listed. The cursor names no app: the listing always filters
 * on the caller's app, so a cursor from another app only gives a position, never its records.
 */
import { AppError } from '../../kernel/errors.js';

const CURSOR_TEXT = /^(\d{12})\.(\d{1,16})$/;

export function encodeStoreCursor(dateKey: string, lastId: number): string {
  return Buffer.from(`${dateKey}.${lastId}`, 'utf8').toString('base64url');
}

/** The id to list after; 400 `illegal_argument` naming `cursor` for anything this listing did not issue. */
export function decodeStoreCursor(cursor: string, dateKey: string): number {
  const bad = (why: string) => new AppError('illegal_argument', { detail: `cursor ${why}` });
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad('is not a cursor of this listing');
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw bad('is not a cursor of this listing');
  if (match[1] !== dateKey) throw bad(`belongs to date key ${match[1]}, not ${dateKey}`);
  const id = Number(match[2]);
  if (!Number.isSafeInteger(id)) throw bad('is not a cursor of this listing');
  return id;
}
